/**
 * English function words and request filler ("can you please help me ...") that carry no meaning for
 * picking a tool. They are dropped on both sides: from tool text so that they do not inflate field
 * lengths, and from queries so that they neither score nor dilute the calibrated relevance (which is
 * the share of the query's idf mass a tool matches). Negation words are NOT here: see NEGATIONS.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but if then else of to in on at by for from with into onto over under about as is are was were be been ' +
    'being am do does did doing done have has had having this that these those it its itself they them their there here ' +
    'i me my mine we us our you your yours he him his she her hers who whom whose which what when where why how ' +
    'can could would should shall will may might must please pls kindly help want wants wanted need needs needed like ' +
    'would also just so very too some any each every all both either such than via etc eg ie im ive youre ' +
    'let lets tell give show know think make sure able try trying using use used uses one ones thing things way ' +
    'up out off again further once only own same other another more most much many few s t d ll m o re ve y'
  ).split(' '),
);

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
