// busboy ships no types and @types/busboy is not installed; this is the part the baseline uses.
declare module 'busboy' {
  import type { IncomingHttpHeaders } from 'node:http';
  import type { Readable, Writable } from 'node:stream';

  interface FileInfo {
    filename: string;
    encoding: string;
    mimeType: string;
  }
  interface BusboyConfig {
    headers: IncomingHttpHeaders;
    limits?: { fileSize?: number; fieldSize?: number; files?: number; fields?: number };
  }
  interface Busboy extends Writable {
    on(
      event: 'file',
      listener: (name: string, stream: Readable & { truncated?: boolean }, info: FileInfo) => void,
    ): this;
    on(event: 'field', listener: (name: string, value: string) => void): this;
    on(event: 'close', listener: () => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
  }
  function busboy(config: BusboyConfig): Busboy;
  export default busboy;
}
