// `npx tsx --tsconfig tsconfig.base.json tools/fingerprint-quality.ts [count]`: recall and
// false-positive rate of the perceptual fingerprint per Hamming-distance threshold, on the
// generated near-duplicate set (docs/near-duplicates.md quotes this table).
import { buildQualitySet, EDITS, measureQuality } from '@framedesk/media';

const count = Number(process.argv[2] ?? 100);
const set = await buildQualitySet(count);
const rows = measureQuality(set, [4, 6, 8, 9, 10, 11, 12, 14, 16]);
const pct = (v: number, digits = 1) => `${(v * 100).toFixed(digits)} %`;
const lines = [
  `| threshold | recall | false positives | ${EDITS.join(' | ')} |`,
  `|---:|---:|---:|${EDITS.map(() => '---:').join('|')}|`,
  ...rows.map(
    (r) =>
      `| ${r.threshold} | ${pct(r.recall)} | ${pct(r.falsePositiveRate, 2)} | ${EDITS.map((e) => pct(r.recallByEdit[e], 0)).join(' | ')} |`,
  ),
];
process.stdout.write(
  `${count} pictures × ${EDITS.length} edits = ${count * EDITS.length} near-duplicate pairs; ` +
    `${count * count + (count * (count - 1)) / 2} pairs of different pictures.\n\n${lines.join('\n')}\n`,
);
