// The chart of charged sales per day, as a PNG. echarts (its server-side SVG renderer) and
// resvg (SVG to PNG, a prebuilt binary inside its package) are loaded by the first report,
// never at start: an idle bot does not carry them. The image holds digits only (the words go
// in its caption): resvg misplaces Devanagari vowel signs, and a caption is in every language.
import type { DaySales } from "../../../domain/report.js";

const WIDTH = 1000;
const HEIGHT = 500;
/** Debian's DejaVu (the image installs fonts-dejavu-core). */
const FONT = "DejaVu Sans";

async function load() {
  const [echarts, charts, components, renderers, resvg] = await Promise.all([
    import("echarts/core"),
    import("echarts/charts"),
    import("echarts/components"),
    import("echarts/renderers"),
    import("@resvg/resvg-js"),
  ]);
  echarts.use([
    charts.BarChart,
    components.GridComponent,
    components.TitleComponent,
    renderers.SVGRenderer,
  ]);
  return { init: echarts.init, Resvg: resvg.Resvg };
}

let loaded: ReturnType<typeof load> | undefined;

/** `title`: the days it covers, such as "2026-11-01 – 2026-11-30". */
export async function salesChart(sales: DaySales[], title: string): Promise<Buffer> {
  loaded ??= load().catch((error: unknown) => {
    loaded = undefined;
    throw error;
  });
  const { init, Resvg } = await loaded;
  const chart = init(null, null, { renderer: "svg", ssr: true, width: WIDTH, height: HEIGHT });
  let svg: string;
  try {
    chart.setOption({
      animation: false,
      backgroundColor: "#ffffff",
      textStyle: { fontFamily: FONT },
      title: { text: title, left: "center", top: 12 },
      grid: { left: 90, right: 30, top: 60, bottom: 50 },
      // "11-20": the title names the whole period.
      xAxis: { type: "category", data: sales.map((day) => day.day.slice(5)) },
      yAxis: { type: "value" },
      // A float is fine for drawing; the exact sums are in the message and the file.
      series: [
        { type: "bar", data: sales.map((day) => Number(day.sum)), itemStyle: { color: "#2f6fdb" } },
      ],
    });
    svg = chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
  const png = new Resvg(svg, {
    font: { loadSystemFonts: true, defaultFontFamily: FONT },
    background: "#ffffff",
  });
  return png.render().asPng();
}
