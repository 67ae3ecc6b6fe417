/** A collection's payload schema and, on request, its conformance report. */
import { useState } from 'preact/hooks';
import type { Session } from '../session.js';
import { failureOf, type ApiFailure } from '../api/errors.js';
import { ErrorNote } from '../ui/error-note.js';
import { useLoad } from '../ui/use-api.js';

interface Report {
  scan?: { exact?: boolean; stopped_because?: string | null };
  [field: string]: unknown;
}

/** The schema section of the explorer. */
export function SchemaView({ session, name }: { session: Session; name: string }) {
  const { api } = session;
  const path = `/api/v1/schema/${encodeURIComponent(name)}`;
  const schema = useLoad(() => api.vectors<Record<string, unknown>>('GET', path), [name]);
  const [report, setReport] = useState<Report | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);
  const notDefined = schema.error?.code === 'SCHEMA_NOT_DEFINED';
  return (
    <section aria-labelledby="schema-title" class="card">
      <h2 id="schema-title">Schema</h2>
      {notDefined ? (
        <p>No payload schema for this collection.</p>
      ) : (
        <ErrorNote error={schema.error} />
      )}
      {schema.data && (
        <>
          <pre class="json">{JSON.stringify(schema.data.result ?? schema.data, null, 2)}</pre>
          <button
            type="button"
            onClick={() =>
              void api
                .vectors<{ result?: Report } & Report>('POST', `${path}/conformance`, {})
                .then(
                  (r) => {
                    setReport(r.result ?? r);
                    setError(null);
                  },
                  (err: unknown) => setError(failureOf(err)),
                )
            }
          >
            Check conformance
          </button>
        </>
      )}
      <ErrorNote error={error} />
      {report && (
        <div role="status">
          <p>
            Scan{' '}
            {report.scan?.exact
              ? 'exact (whole collection)'
              : `not exact (${report.scan?.stopped_because ?? 'sample'})`}
          </p>
          <pre class="json">{JSON.stringify(report, null, 2)}</pre>
        </div>
      )}
    </section>
  );
}
