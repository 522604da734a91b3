/**
 * Chinese words that carry no meaning in a tool request: pronouns, particles, measure words after
 * "一", politeness and question words ("帮我", "请", "一下", "吗", "什么"). The dictionary script leaves
 * them out of the dictionary (scripts/build-dictionary-zh.ts: CC-CEDICT glosses 的 as "of", but also
 * as "taxi" and "target"), and a piece of a request made only of them is no word of the request
 * (index.ts): they neither match through a gloss nor lower a request's coverage.
 */
export const FILLER_WORDS: ReadonlySet<string> = new Set(
  // Pronouns and demonstratives.
  (
    '我 你 您 他 她 它 我们 你们 他们 她们 它们 咱们 自己 这 那 这个 那个 这些 那些 這 這個 那個 這些 們 我們 你們 他們 ' +
    // Particles, aspect and structure words, conjunctions, prepositions.
    '的 地 得 了 着 過 过 吗 嗎 呢 吧 啊 呀 嘛 哦 啦 么 麼 把 被 给 給 让 讓 在 是 和 与 與 及 或 或者 还 還 也 都 就 再 又 很 太 ' +
    '从 從 到 向 对 對 为 為 于 於 以 之 其 而 并 並 且 里 裡 裏 里面 裡面 中 上 ' +
    // Asking, politeness, softeners.
    '帮 幫 帮我 幫我 帮忙 幫忙 请 請 请问 請問 麻烦 麻煩 一下 能 能否 能不能 可以 可不可以 可否 会 會 要 想 ' +
    '是否 是不是 有没有 有沒有 什么 什麼 怎么 怎麼 怎样 怎樣 如何 哪 哪些 哪个 哪個 吗 ' +
    // Measure-word phrases: "一个", "一份", "一篇" say how many, not what.
    '一 一个 一個 一份 一篇 一封 一些 一点 一點 一张 一張 一段 个 個 些'
  ).split(' '),
);

/** The longest filler word `text` has at `start`, as its end, or `start` when none. */
export function fillerEnd(text: string, start: number): number {
  for (let end = Math.min(text.length, start + MAX_FILLER); end > start; end -= 1)
    if (FILLER_WORDS.has(text.slice(start, end))) return end;
  return start;
}

const MAX_FILLER = Math.max(...[...FILLER_WORDS].map((word) => word.length));

// The characters of the filler words: a bigram across two of them ("下这" of "一下这个") is filler too.
const FILLER_CHARS = new Set([...FILLER_WORDS].flatMap((word) => [...word]));

/**
 * Whether `piece` (a character or bigram outside every dictionary word) is made only of filler
 * characters: it is no word the dictionary knows, and only pieces of filler words.
 */
export function isFiller(piece: string): boolean {
  return [...piece].every((char) => FILLER_CHARS.has(char));
}
