// A database URL as messages, logs and /status may show it: never with its password.

/** postgres://user:secret@host/db → postgres://user:***@host/db; text that is no URL is not shown at all. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const name of ['password', 'sslpassword']) if (u.searchParams.has(name)) u.searchParams.set(name, '***');
    return u.toString();
  } catch {
    return 'postgres://(an address that is not a valid URL)';
  }
}

/** Whether `--state` names a PostgreSQL database rather than a SQLite file. */
export const isPgUrl = (spec: string): boolean => /^postgres(ql)?:\/\//i.test(spec);
