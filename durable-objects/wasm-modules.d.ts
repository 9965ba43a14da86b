// Wasm files imported by path: wrangler and the vitest pool bundle them as compiled WebAssembly.Modules.
declare module "*.wasm" {
  const module: WebAssembly.Module;
  export default module;
}
