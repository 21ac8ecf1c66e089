process.on("uncaughtException", (e) => { console.error("UNCAUGHT", e.message, "PANIC:", globalThis.PRISMA_WASM_PANIC_REGISTRY?.get()); process.exit(3) });
await import("./schema-engine.mjs");
