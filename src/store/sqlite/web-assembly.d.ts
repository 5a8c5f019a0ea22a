// The few WebAssembly JavaScript API members the vector kernel uses. The project compiles
// without the DOM library, which is where TypeScript declares them, and @types/node does not.
declare global {
  namespace WebAssembly {
    class Memory {
      constructor(descriptor: { initial: number; maximum?: number });
      readonly buffer: ArrayBuffer;
      grow(delta: number): number;
    }
    class Module {
      constructor(bytes: Uint8Array);
    }
    class Instance {
      constructor(module: Module, imports: Record<string, Record<string, unknown>>);
      readonly exports: Record<string, unknown>;
    }
    function validate(bytes: Uint8Array): boolean;
  }
}

export {};
