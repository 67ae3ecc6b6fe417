/**
 * A collection's payload schema (its enforcement mode and the schema itself)
 * and, on request, a full conformance scan: how many points conform, the
 * fields responsible for the rest, a sample of offending points, and whether
 * the scan reached the end of the collection.
 */
import { useState } from 'preact/hooks';
import { failureOf, type ApiFailure } from '../api/errors.js';
import type { Session } from '../session.js';
import { ErrorNote } from '../ui/error-note.js';
import { TableHead } from '../ui/table-head.js';
import { useLoad } from '../ui/use-api.js';

/** The stored schema record (the fields the view shows). */
interface SchemaRecord {
  schema?: unknown;
  enforcement_mode?: string;
  description?: string | null;
}

/** A conformance report (the fields the view shows). */
interface Report {
  scan?: { exact?: boolean; stopped_because?: string | null; points_scanned?: number };
  points_conforming?: number;
  points_violating?: number;
  fields?: { field: string; points: number }[];
  examples?: { id: string | number; field: string; message: string }[];
}

/** The schema section of the explorer. */
export function SchemaView({ session, name }: { session: Session; name: string }) {
  const { api } = session;
  const path = `/api/v1/schema/${encodeURIComponent(name)}`;
  const schema = useLoad(async () => {
    const body = await api.vectors<{ result?: SchemaRecord } & SchemaRecord>('GET', path);
    return body.result ?? body;
  }, [name]);
  const [report, setReport] = useState<Report | null>(null);
  const [error, setError] = useState<ApiFailure | null>(null);
  const [busy, setBusy] = useState(false);
  const notDefined = schema.error?.code === 'SCHEMA_NOT_DEFINED';

  const check = async () => {
    setBusy(true);
    try {
      const body = await api.vectors<{ result?: Report } & Report>('POST', `${path}/conformance`, {
        mode: 'full',
        max_examples: 10,
      });
      setReport(body.result ?? body);
      setError(null);
    } catch (err) {
      setError(failureOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="schema-title" class="card" data-testid="schema">
      <h2 id="schema-title">Schema</h2>
      {notDefined ? (
        <p>No payload schema for this collection.</p>
      ) : (
        <ErrorNote error={schema.error} />
      )}
      {schema.data && (
        <>
          <p>
            Enforcement: <strong>{schema.data.enforcement_mode ?? '—'}</strong>
            {schema.data.description ? ` · ${schema.data.description}` : ''}
          </p>
          <details>
            <summary>The schema</summary>
            <pre class="json">{JSON.stringify(schema.data.schema, null, 2)}</pre>
          </details>
          <button type="button" disabled={busy} onClick={() => void check()}>
            Check conformance
          </button>
        </>
      )}
      <ErrorNote error={error} />
      {report && <ReportView report={report} />}
    </section>
  );
}

function ReportView({ report }: { report: Report }) {
  const conforming = report.points_conforming ?? 0;
  const total = conforming + (report.points_violating ?? 0);
  return (
    <div role="status" data-testid="conformance">
      <p>
        <strong>
          {conforming} of {total} points conform
        </strong>{' '}
        (
        {report.scan?.exact
          ? 'the whole collection was scanned'
          : `not exact: ${report.scan?.stopped_because ?? 'sample'}`}
        ).
      </p>
      {report.fields && report.fields.length > 0 && (
        <table>
          <caption>Fields responsible</caption>
          <TableHead columns={['Field', 'Points']} />
          <tbody>
            {report.fields.map((f) => (
              <tr key={f.field}>
                <td>
                  <code>{f.field}</code>
                </td>
                <td>{f.points}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {report.examples && report.examples.length > 0 && (
        <ul aria-label="Offending points">
          {report.examples.map((e) => (
            <li key={`${String(e.id)}-${e.field}`}>
              point <code>{String(e.id)}</code>, <code>{e.field}</code>: {e.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
