import { createServer, type IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';

/** One exported span, whichever protocol brought it. Ids are lowercase hex, times nanoseconds. */
export interface ReceivedSpan {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
  /** `application/json` (http/json) or `application/x-protobuf` (http/protobuf). */
  readonly protocol: 'http/json' | 'http/protobuf';
  /** The export request's body as received (decoded to text for JSON, raw for protobuf): for "never in a span" checks. */
  readonly rawBody: string;
}

export interface OtlpReceiver {
  /** The base URL for OTEL_EXPORTER_OTLP_ENDPOINT (`/v1/traces` is appended by the SDK). */
  readonly endpoint: string;
  spans(): readonly ReceivedSpan[];
  /** Resolves when a span matches (polling what arrived), or rejects after `timeoutMs`. */
  waitFor(match: (span: ReceivedSpan) => boolean, timeoutMs?: number): Promise<ReceivedSpan>;
  close(): Promise<void>;
}

// OTLP's protobuf messages, compiled by the OpenTelemetry project from the official
// opentelemetry-proto definitions (protobufjs static code shipped in @opentelemetry/otlp-transformer
// 0.216; later releases hand-write their encoder and ship no decoder).
interface ProtoRoot {
  opentelemetry: {
    proto: {
      collector: {
        trace: {
          v1: {
            ExportTraceServiceRequest: {
              decode(bytes: Uint8Array): unknown;
              toObject(message: unknown, options: Record<string, unknown>): OtlpRequest;
            };
          };
        };
      };
    };
  };
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: { key: string; value: OtlpValue }[];
  links?: { traceId: string; spanId: string }[];
}
interface OtlpRequest {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: OtlpValue }[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

const proto = createRequire(import.meta.url)(
  '@opentelemetry/otlp-transformer/build/src/generated/root.js',
) as ProtoRoot;
const ExportTraceServiceRequest = proto.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

function valueOf(value: OtlpValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  return JSON.stringify(value);
}

function attributesOf(list: { key: string; value: OtlpValue }[] = []): Record<string, string | number | boolean> {
  return Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));
}

/** OTLP/JSON carries ids as hex; the protobuf decoder gives base64 (`bytes: String`). */
const hexId = (id: string | undefined, protocol: ReceivedSpan['protocol']): string =>
  !id ? '' : protocol === 'http/json' ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');

function spansOf(request: OtlpRequest, protocol: ReceivedSpan['protocol'], rawBody: string): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        service,
        traceId: hexId(span.traceId, protocol),
        spanId: hexId(span.spanId, protocol),
        parentSpanId: hexId(span.parentSpanId, protocol),
        name: span.name,
        kind: span.kind ?? 0,
        startNs: BigInt(span.startTimeUnixNano),
        endNs: BigInt(span.endTimeUnixNano),
        attributes: attributesOf(span.attributes),
        links: (span.links ?? []).map((l) => ({
          traceId: hexId(l.traceId, protocol),
          spanId: hexId(l.spanId, protocol),
        })),
        protocol,
        rawBody,
      })),
    );
  });
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return request.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
}

/**
 * An OTLP/HTTP trace receiver on a random loopback port, as a collector (Jaeger, Tempo, the
 * OpenTelemetry Collector) runs one: `POST /v1/traces` with `application/json` or
 * `application/x-protobuf` bodies, answered with an empty ExportTraceServiceResponse.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    bodyOf(req).then(
      (body) => {
        const json = (req.headers['content-type'] ?? '').startsWith('application/json');
        if (json)
          received.push(...spansOf(JSON.parse(body.toString('utf8')) as OtlpRequest, 'http/json', body.toString()));
        else {
          const message = ExportTraceServiceRequest.decode(body);
          const request = ExportTraceServiceRequest.toObject(message, {
            longs: String,
            bytes: String,
            defaults: false,
          });
          received.push(...spansOf(request, 'http/protobuf', body.toString('latin1')));
        }
        res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
        res.end(json ? '{}' : Buffer.alloc(0));
      },
      () => res.writeHead(400).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => received,
    async waitFor(match, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = received.find(match);
        if (found) return found;
        if (Date.now() > deadline) {
          const seen = received.map((s) => `${s.service}:${s.name}`).join(', ');
          throw new Error(`no matching span within ${timeoutMs} ms; received: ${seen || 'none'}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
