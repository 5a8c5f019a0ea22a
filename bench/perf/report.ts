import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineInfo, type MachineInfo } from './machine-info';

/** A table of a benchmark's results. */
export interface Table {
  title: string;
  columns: string[];
  rows: (string | number)[][];
}

/** What a benchmark measured, and under which conditions. */
export interface Report {
  /** File name stem: bench/results/<name>-<date>.md */
  name: string;
  /**
   * `--suffix` of the run: the file becomes <name>-<suffix>-<date>.md, beside the day's other
   * runs of the benchmark, and the command gets the option back.
   */
  suffix?: string;
  title: string;
  /** The command that reproduces the figures (without `--suffix`, which is added). */
  command: string;
  store: string;
  embedder: string;
  /** Further conditions (window, clients, duration...). */
  conditions?: Record<string, string>;
  tables: Table[];
  notes?: string[];
}

const RESULTS_DIR = fileURLToPath(new URL('../results/', import.meta.url));

/** Captures the machine when the benchmark starts (the load average matters most then). */
export function startReport(): MachineInfo {
  return machineInfo();
}

/** Prints the report and writes it to bench/results/<name>[-<suffix>]-<date>.md; returns the file's path. */
export function writeReport(report: Report, machine: MachineInfo = machineInfo()): string {
  const lines = [
    `# ${report.title}`,
    '',
    `- date: ${machine.date}`,
    `- machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}; load average at start ${machine.loadAverage}`,
    `- commit: ${machine.commit}`,
    `- store: ${report.store}`,
    `- embedder: ${report.embedder}`,
    ...Object.entries(report.conditions ?? {}).map(([key, value]) => `- ${key}: ${value}`),
    `- command: \`${report.command}${report.suffix ? ` --suffix ${report.suffix}` : ''}\``,
    '',
  ];
  for (const table of report.tables) {
    lines.push(`## ${table.title}`, '', ...markdownTable(table), '');
  }
  if (report.notes && report.notes.length > 0) lines.push(...report.notes.map((note) => `- ${note}`), '');
  const text = lines.join('\n');
  process.stdout.write(`${text}\n`);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stem = report.suffix ? `${report.name}-${report.suffix}` : report.name;
  const file = path.join(RESULTS_DIR, `${stem}-${machine.date.slice(0, 10)}.md`);
  writeFileSync(file, text);
  process.stdout.write(`(written to ${path.relative(process.cwd(), file)})\n`);
  return file;
}

function markdownTable(table: Table): string[] {
  const cells = (row: (string | number)[]) => `| ${row.map(String).join(' | ')} |`;
  return [cells(table.columns), cells(table.columns.map(() => '---')), ...table.rows.map(cells)];
}
