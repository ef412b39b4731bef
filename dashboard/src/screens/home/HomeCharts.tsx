import { BarChart, LineChart } from '@mantine/charts';

/**
 * Home's two charts. Loaded apart from HomeScreen (React.lazy there): recharts, under
 * @mantine/charts, is a third of the dashboard's JavaScript, and Home's data requests should not
 * wait for it to download (docs/dashboard.md, "Speed and size").
 */
export interface MonthPoint {
  month: string;
  MRR: number;
  Invoiced: number;
  Unpaid: number;
}

const thousands = (v: number) => v.toLocaleString('en-US');

export function MrrChart({ data }: { data: MonthPoint[] }) {
  return <LineChart h={220} data={data} dataKey="month" series={[{ name: 'MRR', color: 'indigo.7' }]} curveType="linear" withDots={false} valueFormatter={thousands} />;
}

export function InvoicedChart({ data }: { data: MonthPoint[] }) {
  return (
    <BarChart
      h={220}
      data={data}
      dataKey="month"
      series={[
        { name: 'Invoiced', color: 'indigo.7' },
        { name: 'Unpaid', color: 'red.7' },
      ]}
      withLegend
      valueFormatter={thousands}
    />
  );
}
