import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

// A uPlot chart sized to its container (and again when the window changes), inside a figure with
// a caption and the same numbers as a table for screen readers and for anyone who wants them.

const COLOURS = ['#1d4ed8', '#b42318', '#146c2e', '#8a4b00', '#6d28d9', '#0e7490'];

export function Chart({
  caption,
  days,
  series,
  unit,
}: {
  caption: string;
  days: string[];
  /** `dash` draws a dashed line (uPlot's canvas dash pattern); `width` overrides the 2 px line. */
  series: { label: string; values: number[]; dash?: number[]; width?: number }[];
  unit: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const x = days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const width = () => Math.max(240, el.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height: 220,
        series: [
          {},
          ...series.map((s, i) => ({
            label: s.label,
            stroke: COLOURS[i % COLOURS.length],
            width: s.width ?? 2,
            dash: s.dash,
            points: { show: days.length < 40 },
          })),
        ],
        axes: [{}, { label: unit }],
        scales: { x: { time: true } },
      },
      [x, ...series.map((s) => s.values)],
      el,
    );
    // The container's own size, not the window's: the side bar and the phone layout change it too.
    const resize = () => plot.setSize({ width: width(), height: 220 });
    const watcher = new ResizeObserver(resize);
    watcher.observe(el);
    window.addEventListener('resize', resize);
    return () => {
      watcher.disconnect();
      window.removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [days, series, unit]);
  return (
    <figure className="chart">
      <figcaption>{caption}</figcaption>
      <div ref={box} className="chart-box" aria-hidden="true" />
      <details>
        <summary>The numbers ({unit})</summary>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {series.map((s) => (
                  <th key={s.label} scope="col">
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {days.map((d, i) => (
                <tr key={d}>
                  <th scope="row">{d}</th>
                  {series.map((s) => (
                    <td key={s.label}>{s.values[i]}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
