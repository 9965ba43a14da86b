/**
 * QuickJS for the Worker: the release-sync variant with its `.wasm` bundled by wrangler
 * as a WebAssembly.Module (Workers cannot compile wasm from bytes at run time), loaded
 * once per isolate on first use. The `.wasm` is imported by its file path, not the
 * package's `./wasm` export: wrangler and Miniflare pick the module type from a `.wasm`
 * ending, so the bundle runs under `wrangler dev`, the vitest pool and plain Miniflare alike.
 */
import variant from "@jitl/quickjs-wasmfile-release-sync";
import wasmModule from "../node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm";
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from "quickjs-emscripten-core";

let loading: Promise<QuickJSWASMModule> | undefined;

export function loadQuickJS(): Promise<QuickJSWASMModule> {
  loading ??= newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmModule })).catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/** Forgets the loaded module (a run broke it); the next run loads a fresh instance. */
export function dropQuickJS(): void {
  loading = undefined;
}
