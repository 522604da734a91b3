/**
 * The words a request spends on asking and on grammar ("Can you please help me find the …") that say
 * nothing of which tool fits: the semantic stage leaves them out of the text it embeds (each costs the
 * encoder a token), and they are stop words. Written as a request writes them: "i'm" and "i'd" keep
 * their apostrophe, and only the semantic stage reads them so (STOP_WORDS leaves them out: see there).
 */
export const REQUEST_FILLER: ReadonlySet<string> = new Set([
  // Asking: who asks, and how politely.
  ...['please', 'kindly', 'can', 'could', 'would', 'help', 'need', 'want', 'like', 'just'],
  ...['i', "i'm", "i'd", 'me', 'my', 'you'],
  // Grammar: articles, pronouns, and the commonest verbs and prepositions.
  ...['a', 'an', 'the', 'this', 'that', 'these', 'those', 'some', 'any', 'it', 'its'],
  ...['is', 'are', 'be', 'to', 'of', 'for', 'we', 'our', 'us'],
]);

/**
 * English function words and request filler ("can you please help me ...") that carry no meaning for
 * picking a tool. They are dropped on both sides: from tool text so that they do not inflate field
 * lengths, and from queries so that they neither score nor dilute the calibrated relevance (which is
 * the share of the query's idf mass a tool matches). Negation words are NOT here: see NEGATIONS.
 * REQUEST_FILLER's words are stop words too, but for its contractions: ranking reads "i'm" as "im"
 * (below), and a contraction as a stop word changed rankings (bench:requests digests).
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  ...[...REQUEST_FILLER].filter((word) => !word.includes("'")),
  ...(
    'and or but if then else in on at by from with into onto over under about as was were been being am do ' +
    'does did doing done have has had having itself they them their there here mine your yours he him his ' +
    'she her hers who whom whose which what when where why how should shall will may might must pls wants ' +
    'wanted needs needed also so very too each every all both either such than via etc eg ie im ive youre ' +
    'let lets tell give show know think make sure able try trying using use used uses one ones thing things ' +
    'way up out off again further once only own same other another more most much many few s t d ll m o re ' +
    've y'
  ).split(' '),
]);

/** Words that negate what follows them in a request ("without", "not", "no", "except", ...). */
export const NEGATIONS: ReadonlySet<string> = new Set([
  'not',
  'no',
  'without',
  'never',
  'except',
  'excluding',
  'exclude',
  'avoid',
  'dont',
  'doesnt',
  'didnt',
  'cannot',
  'cant',
  'wont',
  'isnt',
  'arent',
  'nor',
  'neither',
  'non',
]);
