/**
 * The inner loop of vector search, as a WebAssembly SIMD function: dot products of one int16
 * query with many int8 codes found at given addresses of a memory. Sixteen components per step
 * (sign-extend to int16, i32x4.dot_i16x8_s, add) instead of one: about fifteen times faster than
 * the same loop in JavaScript, which is the difference between scanning tens of thousands of
 * vectors per search within budget or not. The module is assembled here, byte by byte, so the
 * project needs no toolchain and no dependency; `jsDotKernel` is the same function in
 * JavaScript, for runtimes without SIMD and as the reference the tests compare against.
 */

/**
 * dot(addresses, count, query, out, chunks): for i < count, out[i] = sum over the 16 * chunks
 * components of int8 code at addresses[i] times int16 query component. All arguments are byte
 * offsets into the memory, except count and chunks.
 */
export type DotKernel = (addresses: number, count: number, query: number, out: number, chunks: number) => void;

// Opcodes of the instructions used (WebAssembly core spec 2.0; SIMD ones follow the 0xfd prefix).
const I32 = 0x7f;
const V128 = 0x7b;
const BLOCK = [0x02, 0x40];
const LOOP = [0x03, 0x40];
const END = 0x0b;
const BR = 0x0c;
const BR_IF = 0x0d;
const LOCAL_GET = 0x20;
const LOCAL_SET = 0x21;
const I32_LOAD = [0x28, 0x02, 0x00];
const I32_STORE = [0x36, 0x02, 0x00];
const I32_CONST = 0x41;
const I32_GE_U = 0x4f;
const I32_LT_U = 0x49;
const I32_ADD = 0x6a;
const simd = (opcode: number, ...immediates: number[]): number[] => [0xfd, ...uleb(opcode), ...immediates];
const V128_LOAD = (offset: number) => simd(0x00, 0x00, ...uleb(offset));
const V128_ZERO = simd(0x0c, ...new Array<number>(16).fill(0));
const I32X4_EXTRACT_LANE = (lane: number) => simd(0x1b, lane);
const I16X8_EXTEND_LOW_I8X16_S = simd(0x87);
const I16X8_EXTEND_HIGH_I8X16_S = simd(0x88);
const I32X4_ADD = simd(0xae);
const I32X4_DOT_I16X8_S = simd(0xba);

// Parameters and locals of the function, by index.
const [ADDRESSES, COUNT, QUERY, OUT, CHUNKS, ROW, CODE, STEP, WEIGHTS, SUM, CODES] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

function uleb(value: number): number[] {
  const bytes: number[] = [];
  let rest = value >>> 0;
  do {
    const byte = rest & 0x7f;
    rest >>>= 7;
    bytes.push(rest === 0 ? byte : byte | 0x80);
  } while (rest !== 0);
  return bytes;
}

function sleb(value: number): number[] {
  const bytes: number[] = [];
  let rest = value | 0;
  for (;;) {
    const byte = rest & 0x7f;
    rest >>= 7;
    const done = (rest === 0 && (byte & 0x40) === 0) || (rest === -1 && (byte & 0x40) !== 0);
    bytes.push(done ? byte : byte | 0x80);
    if (done) return bytes;
  }
}

const get = (local: number) => [LOCAL_GET, local];
const set = (local: number) => [LOCAL_SET, local];
const addConstant = (local: number, value: number) => [...get(local), I32_CONST, ...sleb(value), I32_ADD, ...set(local)];

function dotBody(): number[] {
  const accumulate = (half: number[], queryOffset: number) => [
    ...get(CODES),
    ...half,
    ...get(WEIGHTS),
    ...V128_LOAD(queryOffset),
    ...I32X4_DOT_I16X8_S,
    ...get(SUM),
    ...I32X4_ADD,
    ...set(SUM),
  ];
  const code = [
    // for (row = 0; row < count; row++)
    ...BLOCK,
    ...LOOP,
    ...get(ROW),
    ...get(COUNT),
    I32_GE_U,
    BR_IF,
    1,
    // code = addresses[row]; weights = query; sum = 0; step = 0
    ...get(ADDRESSES),
    ...get(ROW),
    ...get(ROW),
    I32_ADD,
    ...get(ROW),
    ...get(ROW),
    I32_ADD,
    I32_ADD,
    I32_ADD,
    ...I32_LOAD,
    ...set(CODE),
    ...get(QUERY),
    ...set(WEIGHTS),
    ...V128_ZERO,
    ...set(SUM),
    I32_CONST,
    0,
    ...set(STEP),
    // do { 16 components } while (++step < chunks)
    ...LOOP,
    ...get(CODE),
    ...V128_LOAD(0),
    ...set(CODES),
    ...accumulate(I16X8_EXTEND_LOW_I8X16_S, 0),
    ...accumulate(I16X8_EXTEND_HIGH_I8X16_S, 16),
    ...addConstant(CODE, 16),
    ...addConstant(WEIGHTS, 32),
    ...addConstant(STEP, 1),
    ...get(STEP),
    ...get(CHUNKS),
    I32_LT_U,
    BR_IF,
    0,
    END,
    // out[row] = sum of the four lanes
    ...get(OUT),
    ...get(ROW),
    ...get(ROW),
    I32_ADD,
    ...get(ROW),
    ...get(ROW),
    I32_ADD,
    I32_ADD,
    I32_ADD,
    ...get(SUM),
    ...I32X4_EXTRACT_LANE(0),
    ...get(SUM),
    ...I32X4_EXTRACT_LANE(1),
    I32_ADD,
    ...get(SUM),
    ...I32X4_EXTRACT_LANE(2),
    I32_ADD,
    ...get(SUM),
    ...I32X4_EXTRACT_LANE(3),
    I32_ADD,
    ...I32_STORE,
    ...addConstant(ROW, 1),
    BR,
    0,
    END,
    END,
    END,
  ];
  // Locals after the five parameters: row, code, step, weights (i32); sum, codes (v128).
  const locals = [2, 4, I32, 2, V128];
  const body = [...locals, ...code];
  return [...uleb(body.length), ...body];
}

function section(id: number, contents: number[]): number[] {
  return [id, ...uleb(contents.length), ...contents];
}

const name = (text: string) => [...uleb(text.length), ...Array.from(text, (character) => character.charCodeAt(0))];

/** The module: imports env.memory, exports `dot`. */
function moduleBytes(): Uint8Array {
  const type = [1, 0x60, 5, I32, I32, I32, I32, I32, 0];
  const imports = [1, ...name('env'), ...name('memory'), 0x02, 0x00, 0x01];
  const functions = [1, 0];
  const exports = [1, ...name('dot'), 0x00, 0];
  const code = [1, ...dotBody()];
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, type),
    ...section(2, imports),
    ...section(3, functions),
    ...section(7, exports),
    ...section(10, code),
  ]);
}

let compiled: WebAssembly.Module | null | undefined;

/** The SIMD kernel over `memory`, or null where the runtime has no WebAssembly SIMD. */
export function simdDotKernel(memory: WebAssembly.Memory): DotKernel | null {
  if (compiled === undefined) {
    const bytes = moduleBytes();
    compiled = WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
  }
  if (compiled === null) return null;
  const instance = new WebAssembly.Instance(compiled, { env: { memory } });
  return instance.exports['dot'] as DotKernel;
}

/** The same function in JavaScript. */
export function jsDotKernel(memory: WebAssembly.Memory): DotKernel {
  return (addresses, count, query, out, chunks) => {
    const buffer = memory.buffer;
    const codes = new Int8Array(buffer);
    const words = new Int32Array(buffer);
    const weights = new Int16Array(buffer, query, chunks * 16);
    const components = chunks * 16;
    for (let row = 0; row < count; row++) {
      const base = words[(addresses >>> 2) + row]!;
      let sum = 0;
      for (let index = 0; index < components; index++) sum = (sum + codes[base + index]! * weights[index]!) | 0;
      words[(out >>> 2) + row] = sum;
    }
  };
}
