// busboy 1.x (multer 2's parser) ships no types; only what multipart.ts uses.
declare module 'busboy' {
  import type { IncomingHttpHeaders } from 'node:http';
  import type { Readable, Writable } from 'node:stream';

  interface Limits {
    fieldNameSize?: number;
    fieldSize?: number;
    fields?: number;
    fileSize?: number;
    files?: number;
    parts?: number;
    headerPairs?: number;
  }
  interface Config {
    headers: IncomingHttpHeaders;
    limits?: Limits;
    highWaterMark?: number;
    fileHwm?: number;
  }
  interface FileInfo {
    filename: string | undefined;
    encoding: string;
    mimeType: string;
  }
  interface FieldInfo {
    nameTruncated: boolean;
    valueTruncated: boolean;
    encoding: string;
    mimeType: string;
  }
  interface FileStream extends Readable {
    truncated: boolean;
  }
  interface Busboy extends Writable {
    on(event: 'file', listener: (name: string, stream: FileStream, info: FileInfo) => void): this;
    on(event: 'field', listener: (name: string, value: string, info: FieldInfo) => void): this;
    on(event: 'partsLimit' | 'filesLimit' | 'fieldsLimit' | 'close' | 'finish', listener: () => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
  }
  function busboy(config: Config): Busboy;
  export default busboy;
}
