// Whether `--state` names a PostgreSQL database. Messages show its URL through src/util/redact.ts.

/** Whether `--state` names a PostgreSQL database rather than a SQLite file. */
export const isPgUrl = (spec: string): boolean => /^postgres(ql)?:\/\//i.test(spec);
