// The storage report (GET /storage): what the home holds, as nested lists; sizes in bytes
// read as KiB/MiB/GiB.
import { useEffect, useState } from 'preact/hooks'
import type { ApiClient } from '../../api/client.ts'
import { problemText } from '../../ui/problem-text.ts'

function bytesText(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let v = n
  let i = 0
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return i === 0 ? `${v} B` : `${v.toFixed(1)} ${units[i]}`
}

function Value({ name, value }: { name: string; value: unknown }) {
  if (typeof value === 'object' && value !== null && !Array.isArray(value))
    return (
      <dl class="report">
        {Object.entries(value).map(([k, v]) => (
          <div key={k} class="report-row">
            <dt>{k.replaceAll('_', ' ')}</dt>
            <dd>
              <Value name={k} value={v} />
            </dd>
          </div>
        ))}
      </dl>
    )
  if (typeof value === 'number' && /bytes$/.test(name))
    return <span title={`${value} bytes`}>{bytesText(value)}</span>
  if (Array.isArray(value))
    return (
      <span>
        {value.length === 0
          ? 'none'
          : value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join(', ')}
      </span>
    )
  return <span>{value === null ? '—' : String(value)}</span>
}

export function StorageReport({ client }: { client: ApiClient }) {
  const [report, setReport] = useState<unknown>()
  const [error, setError] = useState<string>()
  useEffect(() => {
    client.call('storage.get').then(
      (r) => setReport(r.body),
      (err) => setError(problemText(err)),
    )
  }, [])
  return (
    <section class="storage-report" data-loaded={report ? 'true' : undefined}>
      <h3>Storage</h3>
      {error ? <p class="error-text">{error}</p> : null}
      {report ? <Value name="" value={report} /> : <p class="note">Reading…</p>}
    </section>
  )
}
