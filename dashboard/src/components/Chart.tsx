import { Box, Group, Text, useMantineTheme, type MantineTheme } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { DataTable } from './DataTable';

/**
 * The dashboard's charts: uPlot (a small canvas chart library) under a thin React component.
 * uPlot replaced @mantine/charts over recharts, which alone was a third of the dashboard's
 * JavaScript (docs/dashboard.md, "Speed and size").
 *
 * The x axis is a list of categories (months, days, dimension groups), drawn at 0, 1, 2...; each
 * series is a line or bars over them. A canvas says nothing to a screen reader, so the drawing is
 * an image named by `title`, and the same figures are in a table under "Show the figures".
 */
export interface ChartSeries {
  name: string;
  /** A Mantine colour with its shade, e.g. `indigo.7`. */
  color: string;
  kind: 'line' | 'bar';
  /** One value a category. */
  values: number[];
  /** Bars' width as a share of a category's slot (0.6). A narrower series drawn after a wider one sits inside it. */
  barWidth?: number;
}

export interface ChartProps {
  /** The chart's accessible name and the caption of its table. */
  title: string;
  /** The header of the categories' column in the table: "Month", "Day". */
  categoryLabel: string;
  categories: string[];
  series: ChartSeries[];
  height: number;
  /** How values are written on the y axis, in the table and under the pointer. */
  format?: (value: number) => string;
}

const plain = (value: number) => value.toLocaleString('en-US');

/** `indigo.7` as a CSS colour (a canvas cannot read Mantine's CSS variables). */
function resolveColor(theme: MantineTheme, color: string): string {
  const [name = '', shade = '6'] = color.split('.');
  return theme.colors[name]?.[Number(shade)] ?? color;
}

/** Steps between labelled categories that uPlot may choose from, the first that leaves room. */
const CATEGORY_STEPS = [1, 2, 3, 4, 6, 7, 12, 14, 30];

function chartOptions(props: ChartProps, theme: MantineTheme, width: number, format: (v: number) => string, onHover: (index: number | null) => void, onDrawn: () => void): uPlot.Options {
  const { categories, series, height } = props;
  const axisColor = theme.colors.gray[8];
  const font = `12px ${theme.fontFamily ?? 'sans-serif'}`;
  return {
    width,
    height,
    legend: { show: false },
    cursor: { drag: { x: false, y: false }, points: { show: false } },
    scales: {
      x: { time: false, range: () => [-0.5, categories.length - 0.5] },
      y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] },
    },
    axes: [
      {
        stroke: axisColor,
        font,
        grid: { show: false },
        ticks: { show: false },
        space: 56,
        incrs: CATEGORY_STEPS,
        values: (_u, splits) => splits.map((s) => (Number.isInteger(s) ? (categories[s] ?? '') : '')),
      },
      {
        stroke: axisColor,
        font,
        grid: { stroke: theme.colors.gray[3], width: 1 },
        ticks: { show: false },
        values: (_u, splits) => splits.map(format),
        size: (_u, values) => 16 + 7 * Math.max(3, ...(values ?? []).map((v) => v.length)),
      },
    ],
    series: [
      {},
      ...series.map((s): uPlot.Series => {
        const color = resolveColor(theme, s.color);
        return s.kind === 'bar'
          ? { label: s.name, stroke: color, fill: color, width: 0, points: { show: false }, paths: uPlot.paths.bars!({ size: [s.barWidth ?? 0.6, 64] }) }
          : { label: s.name, stroke: color, width: 2, points: { show: categories.length === 1 } };
      }),
    ],
    hooks: {
      setCursor: [(u) => onHover(u.cursor.idx ?? null)],
      draw: [onDrawn],
    },
  };
}

export function Chart(props: ChartProps) {
  const { title, categoryLabel, categories, series, height } = props;
  const format = props.format ?? plain;
  const theme = useMantineTheme();
  const box = useRef<HTMLDivElement>(null);
  const [hovered, setHovered] = useState<number | null>(null);
  // Redrawn when the figures change (a refetch with the same figures keeps the chart).
  const key = JSON.stringify([categories, series]);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const drawn = () => element.setAttribute('data-drawn', 'true');
    const plot = new uPlot(chartOptions(props, theme, element.clientWidth, format, setHovered, drawn), [categories.map((_, i) => i), ...series.map((s) => s.values)], element);
    const resize = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
      element.removeAttribute('data-drawn');
    };
    // `key` stands for categories and series; the theme and format do not change while shown.
  }, [key, height]);

  const rows = categories.map((category, index) => ({ category, index }));
  return (
    <Box>
      {series.length > 1 && (
        <Group gap="md" mb={4} aria-hidden>
          {series.map((s) => (
            <Group key={s.name} gap={6}>
              <Box w={12} h={12} bg={s.color} style={{ borderRadius: 2 }} />
              <Text size="xs">{s.name}</Text>
            </Group>
          ))}
        </Group>
      )}
      <div ref={box} role="img" aria-label={title} style={{ height }} />
      <Text size="xs" c="gray.7" mih={18} aria-hidden>
        {hovered !== null && categories[hovered] !== undefined ? `${categories[hovered]}: ${series.map((s) => `${s.name} ${format(s.values[hovered] ?? 0)}`).join(', ')}` : '\u00a0'}
      </Text>
      <details>
        <Text component="summary" size="sm" style={{ cursor: 'pointer' }}>
          Show the figures
        </Text>
        <DataTable
          caption={title}
          rows={rows}
          rowKey={(r) => String(r.index)}
          minWidth={240}
          columns={[{ header: categoryLabel, render: (r) => r.category }, ...series.map((s) => ({ header: s.name, numeric: true, render: (r: { index: number }) => format(s.values[r.index] ?? 0) }))]}
        />
      </details>
    </Box>
  );
}
