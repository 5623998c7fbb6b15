// One limit's trail as a uPlot chart: used percent (0–100) over time up to now, the window's
// past resets as dashed vertical lines, and the time since the last reading shaded when that reading is
// stale. The module is loaded on the quota screen's first chart (a chunk of its own, with
// uPlot), so the first page load does not carry it; uPlot's style sheet is in screens.css.
// Colours come from the page's CSS variables, so light and dark both hold; the chart
// takes its container's width and follows it (narrow screens).
import { useEffect, useRef } from 'preact/hooks'
import uPlot from 'uplot'

export interface ChartInput {
  /** Epoch seconds, oldest first. */
  times: number[]
  percents: (number | null)[]
  resets: number[]
  /** Epoch seconds: the chart's left and right ends. */
  from: number
  to: number
  /** Shade from the last reading to `to`. */
  stale: boolean
  label: string
}

const cssVar = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim()

function markResetsAndStaleness(input: ChartInput) {
  return (u: uPlot) => {
    const ctx = u.ctx
    const top = u.bbox.top
    const height = u.bbox.height
    ctx.save()
    ctx.strokeStyle = cssVar('--muted')
    ctx.setLineDash([4 * devicePixelRatio, 4 * devicePixelRatio])
    ctx.lineWidth = devicePixelRatio
    for (const at of input.resets) {
      const x = u.valToPos(at / 1000, 'x', true)
      if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) continue
      ctx.beginPath()
      ctx.moveTo(x, top)
      ctx.lineTo(x, top + height)
      ctx.stroke()
    }
    const last = input.times.at(-1)
    if (input.stale && last !== undefined) {
      const x0 = u.valToPos(last, 'x', true)
      const x1 = u.valToPos(input.to, 'x', true)
      ctx.globalAlpha = 0.18
      ctx.fillStyle = cssVar('--error')
      ctx.fillRect(x0, top, x1 - x0, height)
    }
    ctx.restore()
  }
}

function options(input: ChartInput, width: number): uPlot.Options {
  const fg = cssVar('--muted')
  const grid = { stroke: cssVar('--line'), width: 1 }
  const axis = { stroke: fg, grid, ticks: grid }
  return {
    width,
    height: 160,
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: true, range: [input.from, input.to] }, y: { range: [0, 100] } },
    axes: [axis, { ...axis, values: (_u, ticks) => ticks.map((t) => `${t}%`), size: 56 }],
    series: [
      {},
      {
        label: input.label,
        stroke: cssVar('--accent'),
        width: 2,
        spanGaps: false,
        points: { show: input.times.length < 60, size: 5 },
      },
    ],
    hooks: { draw: [markResetsAndStaleness(input)] },
  }
}

export function QuotaChart({ input }: { input: ChartInput }) {
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const el = box.current
    if (!el) return
    const width = () => Math.max(240, el.clientWidth)
    const chart = new uPlot(options(input, width()), [input.times, input.percents], el)
    const observer = new ResizeObserver(() => chart.setSize({ width: width(), height: 160 }))
    observer.observe(el)
    // The system's light/dark switch changes the variables: draw again with the new colours.
    const scheme = matchMedia('(prefers-color-scheme: dark)')
    const redraw = () => {
      chart.destroy()
      el.replaceChildren()
      chartRef.current = new uPlot(options(input, width()), [input.times, input.percents], el)
    }
    const chartRef = { current: chart }
    scheme.addEventListener('change', redraw)
    return () => {
      scheme.removeEventListener('change', redraw)
      observer.disconnect()
      chartRef.current.destroy()
    }
  }, [input])
  return <div class="quota-chart" ref={box} role="img" aria-label={`${input.label} over time`} />
}
