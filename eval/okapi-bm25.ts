import type { RankedTool, RankInput, RankOptions } from '../packages/core/src/index.js';

/**
 * Plain Okapi BM25 over one bag of words per tool (name, server, description), whitespace and
 * punctuation tokenization, no stemming, all sub-queries merged into one bag, relevance =
 * score / maxScore. This is the reference baseline that `npm run eval` compares our ranker
 * against; it is deliberately naive.
 */
const K1 = 1.2;
const B = 0.75;

function tokenizePlain(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

export function rankOkapiBm25(input: RankInput, options: RankOptions = {}): RankedTool[] {
  const docs = input.tools.map((tool) =>
    tokenizePlain(`${tool.toolName} ${tool.serverName} ${tool.description ?? ''}`),
  );
  const docFreq = new Map<string, number>();
  for (const doc of docs) for (const term of new Set(doc)) docFreq.set(term, (docFreq.get(term) ?? 0) + 1);
  const avgLength = docs.reduce((sum, doc) => sum + doc.length, 0) / Math.max(docs.length, 1) || 1;
  const queryTerms = [...new Set(input.query.flatMap(tokenizePlain))];

  const scored = docs.map((doc, index) => {
    const termFreq = new Map<string, number>();
    for (const term of doc) termFreq.set(term, (termFreq.get(term) ?? 0) + 1);
    let score = 0;
    for (const term of queryTerms) {
      const tf = termFreq.get(term);
      if (!tf) continue;
      const df = docFreq.get(term) ?? 0;
      const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
      score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / avgLength));
    }
    return { index, score };
  });

  const matched = scored.filter((entry) => entry.score > 0).sort((a, b) => b.score - a.score || a.index - b.index);
  const maxScore = matched[0]?.score ?? 1;
  return matched.slice(0, options.limit ?? matched.length).map(({ index, score }) => ({
    tool: input.tools[index]!,
    index,
    score,
    relevance: score / maxScore,
    explanation: 'plain BM25 match',
  }));
}
