/**
 * A counting semaphore with a bounded wait list: `tryAcquire` resolves to a release function, or
 * to null at once when `max` holders are busy and `maxWaiting` callers already wait.
 */
export function createSemaphore(max: number, maxWaiting: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };
  const once = () => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      release();
    };
  };
  return {
    async tryAcquire(): Promise<(() => void) | null> {
      if (active < max) {
        active++;
        return once();
      }
      if (waiting.length >= maxWaiting) return null;
      await new Promise<void>((resolve) => waiting.push(resolve));
      return once();
    },
    get busy() {
      return active;
    },
  };
}
export type Semaphore = ReturnType<typeof createSemaphore>;
