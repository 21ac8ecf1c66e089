import type { Logger } from 'pino';

/**
 * Runs `steps` in order once, on SIGTERM or SIGINT, then exits. A second signal exits at once.
 */
export function onShutdown(
  logger: Logger,
  steps: readonly { name: string; run: () => Promise<unknown> }[],
  timeoutMs = 30_000,
): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error('shutdown timed out');
      process.exit(1);
    }, timeoutMs).unref();
    for (const step of steps) {
      try {
        await step.run();
      } catch (error) {
        logger.error({ err: error, step: step.name }, 'shutdown step failed');
      }
    }
    clearTimeout(timer);
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
