/**
 * Why a process could not listen on its port, in the terms of the setting that chose it: what an
 * operator reads when `API_PORT` or `WORKER_HEALTH_PORT` is taken (two workers on one machine,
 * a second `npm start`), instead of an unhandled 'error' event's stack.
 */
export function listenFailure(
  error: NodeJS.ErrnoException,
  port: { setting: string; host: string; port: number },
): string {
  const where = `${port.host}:${port.port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return `${port.setting}=${port.port}: ${where} is already in use (another Framedesk process, or another program). Stop it, or set ${port.setting} to a free port.`;
    case 'EACCES':
      return `${port.setting}=${port.port}: not allowed to listen on ${where} (ports below 1024 need privileges). Set ${port.setting} to a port above 1023.`;
    case 'EADDRNOTAVAIL':
      return `API_HOST=${port.host}: no network interface of this machine has that address. Set API_HOST to one it has (0.0.0.0 for all).`;
    default:
      return `cannot listen on ${where} (${error.message}).`;
  }
}
