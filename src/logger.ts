/** Log levels, most verbose first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** A structured logger: one JSON object per line, never message contents or secrets. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
/** Field names whose values are never written out. */
const SECRET_FIELDS = /authorization|api[-_]?key|password|token|secret|cookie/i;

/** A logger writing JSON lines to a sink (stderr by default) at or above `level`. */
export function createLogger(level: LogLevel, sink: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Logger {
  const write = (at: Exclude<LogLevel, 'silent'>, message: string, fields: Record<string, unknown> = {}) => {
    if (ORDER[at] < ORDER[level]) return;
    sink(JSON.stringify({ time: new Date().toISOString(), level: at, message, ...redact(fields) }));
  };
  return {
    debug: (message, fields) => write('debug', message, fields),
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
  };
}

function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const clean: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    clean[key] = SECRET_FIELDS.test(key) && !key.endsWith('tokens') ? '[redacted]' : value;
  }
  return clean;
}
