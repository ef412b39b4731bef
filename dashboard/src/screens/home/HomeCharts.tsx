import { Chart } from '../../components/Chart';

/**
 * Home's two charts. Loaded apart from HomeScreen (React.lazy there), so Home's data requests do
 * not wait for the chart library (uPlot) to download (docs/dashboard.md, "Speed and size").
 */
export interface MonthPoint {
  month: string;
  MRR: number;
  Invoiced: number;
  Unpaid: number;
}

const thousands = (v: number) => v.toLocaleString('en-US');

export function MrrChart({ data, title }: { data: MonthPoint[]; title: string }) {
  return <Chart title={title} categoryLabel="Month" categories={data.map((d) => d.month)} height={220} format={thousands} series={[{ name: 'MRR', color: 'indigo.7', kind: 'line', values: data.map((d) => d.MRR) }]} />;
}

/** Each month's unpaid part is a narrower bar inside its invoiced bar (unpaid is part of invoiced). */
export function InvoicedChart({ data, title }: { data: MonthPoint[]; title: string }) {
  return (
    <Chart
      title={title}
      categoryLabel="Month"
      categories={data.map((d) => d.month)}
      height={220}
      format={thousands}
      series={[
        { name: 'Invoiced', color: 'indigo.7', kind: 'bar', values: data.map((d) => d.Invoiced), barWidth: 0.7 },
        { name: 'Unpaid', color: 'red.7', kind: 'bar', values: data.map((d) => d.Unpaid), barWidth: 0.35 },
      ]}
    />
  );
}
