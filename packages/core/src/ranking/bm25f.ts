// The BM25F formula, in one place (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25
// and Beyond", 2009, section 3.6; MiniSearch's calcBM25Score has the same shape for one field):
//
//   score(tool)   = Σ over query terms t of  termScore(idf(docFreq(t), N), tf'(t))
//   tf'(t)        = Σ over fields f of  count(t, f) × fieldFactor(f)
//   fieldFactor f = weight_f / (1 − b_f + b_f × length_f / averageLength_f)
//
// The field weights and `b` are in fields.ts. Where each part is computed: fieldFactor once per list
// (corpus.ts, when a list is prepared), tf' while scanning the tokens (term-matches.ts), idf and
// termScore per sub-query (score-query.ts), which then adds coordination, negation and server affinity.

/** Term-frequency saturation: how quickly more occurrences stop adding. */
const K1 = 1.2;

/** Inverse document frequency of a term found in `docFreq` of `listSize` tools (never negative). */
export function idf(docFreq: number, listSize: number): number {
  return Math.log(1 + (listSize - docFreq + 0.5) / (docFreq + 0.5));
}

/**
 * What one occurrence of a term in a field adds to tf': the field's `weight`, divided by how long the
 * field is against its average over the list (`b` = 0: length ignored; 1: fully normalised).
 */
export function fieldFactor(weight: number, b: number, length: number, averageLength: number): number {
  return weight / (1 - b + (b * length) / averageLength);
}

/** One query term's share of a tool's score, from its idf and its field-weighted frequency tf'. */
export function termScore(termIdf: number, weightedFrequency: number): number {
  return (termIdf * weightedFrequency * (K1 + 1)) / (K1 + weightedFrequency);
}
