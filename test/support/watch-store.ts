/**
 * `store` as it is, but for `method`, which hands each call's arguments to `onCall` before
 * running as usual: how a test sees which reads or writes the code under test made.
 */
export function watchStore<T extends object>(store: T, method: keyof T & string, onCall: (args: unknown[]) => void): T {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (property !== method) return value.bind(target);
      return (...args: unknown[]) => {
        onCall(args);
        return value.apply(target, args);
      };
    },
  });
}
