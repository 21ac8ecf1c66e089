import { useState } from 'react';
import { TextField } from '../ui';

/** Admins: the audit trail of a channel and a date range, downloaded as CSV (GET /review/audit). */
export function AuditDownload() {
  const [channel, setChannel] = useState('');
  const [since, setSince] = useState('');
  const [until, setUntil] = useState('');
  const query = new URLSearchParams({ format: 'csv' });
  if (channel.trim()) query.set('channel', channel.trim());
  if (since.trim()) query.set('since', since.trim());
  if (until.trim()) query.set('until', until.trim());
  return (
    <section className="audit-download" aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit trail</h2>
      <p className="hint">
        Every decision (who, from, to, reason, note) and every account, membership, retention and erasure change, in
        time order.
      </p>
      <TextField label="Channel" value={channel} onChange={setChannel} placeholder="all channels" />
      <TextField label="From" value={since} onChange={setSince} placeholder="YYYY-MM-DD" />
      <TextField label="Until" value={until} onChange={setUntil} placeholder="YYYY-MM-DD (exclusive)" />
      <a className="ui-button" href={`/review/audit?${query}`} download>
        Download CSV
      </a>
    </section>
  );
}
