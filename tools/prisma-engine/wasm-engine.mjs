// Loads @prisma/schema-engine-wasm in plain Node (no --experimental-wasm-modules):
// instantiate schema_engine_bg.wasm against the package's JS glue by hand.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as glue from '@prisma/schema-engine-wasm/schema_engine_bg';

// The package's "exports" hide package.json and the .wasm file: locate them beside the glue.
const gluePath = fileURLToPath(import.meta.resolve('@prisma/schema-engine-wasm/schema_engine_bg'));
const packageDir = path.dirname(gluePath);

/** Version of the wasm engine package, e.g. 7.10.0-4.0edf323efd1d98336f3f0a68684b56f689b900d3. */
export function enginePackageVersion() {
  return JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')).version;
}

/** The engine commit hash the package was built from (what `schema-engine --version` prints). */
export function engineCommitHash() {
  return enginePackageVersion().split('.').pop();
}

/** Panic messages reported by the Rust panic hook (read by the RPC layer). */
class PanicRegistry {
  message = '';
  get() {
    return this.message;
  }
  set_message(message) {
    this.message = `RuntimeError: ${message}`;
  }
}

let loaded;

/** Instantiate the wasm module once; returns the glue module (SchemaEngine, version, ...). */
export function loadSchemaEngineWasm() {
  loaded ??= (async () => {
    // The glue calls `global.PRISMA_WASM_PANIC_REGISTRY.set_message()` from the panic hook.
    globalThis.PRISMA_WASM_PANIC_REGISTRY ??= new PanicRegistry();
    const wasmPath = path.join(packageDir, 'schema_engine_bg.wasm');
    const bytes = await readFile(wasmPath);
    const { instance } = await WebAssembly.instantiate(bytes, { './schema_engine_bg.js': glue });
    glue.__wbg_set_wasm(instance.exports);
    instance.exports.__wbindgen_start();
    return glue;
  })();
  return loaded;
}

export function lastPanicMessage() {
  return globalThis.PRISMA_WASM_PANIC_REGISTRY?.get() ?? '';
}
