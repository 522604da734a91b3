import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadLanguages, rankTools, type ToolInfo, type ToolListSearchRequest } from '../src/index.js';
import { latinLanguageOf } from '../src/languages/latin-markers.js';
import { analyzeQuery } from '../src/text/tokenize.js';

// German, French, Spanish, Portuguese and Italian requests, read without a dictionary
// (languages/latin-language.ts). Module state is per test file: English answers are recorded before
// any language is loaded, then compared with every language loaded.

const sample = JSON.parse(
  readFileSync(new URL('../../../examples/search-request.json', import.meta.url), 'utf8'),
) as ToolListSearchRequest;
const everyday = JSON.parse(readFileSync(new URL('../../../eval/everyday/requests.json', import.meta.url), 'utf8')) as {
  requests: { list: string; query: string }[];
};
const english = [
  ...everyday.requests.filter((request) => request.list === 'sample').map((request) => request.query),
  // English requests quoting words the other languages use.
  'list open issues per page, no github labels',
  'die if the AI model con job fails',
  'summarize the Der Spiegel article on la liga',
  'send an email to the team in Italian: "per favore"',
  // A quoted text to translate, and code: what the request is about, not its language.
  "Translate the following text from French to English: “Le système éducatif est composé d'écoles et de lycées”",
  'Help me to translate a Spanish text to English: "Lo siento, pero no puedo ir a la reunión de la tarde"',
  'what is the length of BC? [asy] pair A, B, C, D; A=(0,0); D=(-35,0); label("$A$", A, SW); [/asy]',
];

const top = (query: string, tools: ToolInfo[] = sample.tools) =>
  rankTools({ query: [query], tools }, { limit: 5 }).map((r) => [r.tool.toolKey, r.score, r.relevance, r.explanation]);

const before = new Map(english.map((query) => [query, top(query)]));

describe('which requests are in a Latin-script language', () => {
  it.each([
    ['Schick eine E-Mail an Bob', 'de'],
    ['Welche Tabellen gibt es in der Datenbank?', 'de'],
    ['Envoie un e-mail à Bob', 'fr'],
    ['Quelles tables y a-t-il dans la base de données ?', 'fr'],
    ['¿Qué tablas hay en la base de datos?', 'es'],
    ['Envía un correo electrónico a Bob', 'es'],
    ['Quais tabelas existem no banco de dados?', 'pt'],
    ['Quali tabelle ci sono nel database?', 'it'],
    // No word that is never English, but three different filler words and no English one.
    ['Encontra o documento de onboarding no Notion', 'pt'],
    ["Manda un'e-mail a Bob", 'it'],
    // One word that is never English, of four letters or more, and no English filler word.
    ['Erstelle einen neuen Ordner namens invoices', 'de'],
  ])('%s: %s', (text, code) => {
    expect(latinLanguageOf(text)).toBe(code);
  });

  it('English requests are in none, even quoting their words', () => {
    for (const query of english) expect(latinLanguageOf(query), query).toBeUndefined();
  });

  it('an all-ASCII request is read word for word as the Unicode path reads it', () => {
    // A non-ASCII separator (an em dash) sends the same words down the Unicode path.
    const requests = [
      ...english,
      'Erstelle einen neuen Ordner namens invoices',
      'Encontra o documento de onboarding no Notion',
      'Quali tabelle ci sono nel database?',
      'Envoie un mail a Bob avec le rapport',
      'Der Bericht und die Tabelle',
      'DER BERICHT UND DIE TABELLE, mit Der und dEr',
      'eine A B C und a-b-c von Bob',
      'pour le "rapport de la semaine" avec Bob',
    ];
    for (const text of requests)
      if (!/[^\x00-\x7f]/.test(text)) expect(latinLanguageOf(text), text).toBe(latinLanguageOf(`${text} —`));
  });
});

describe('loaded', () => {
  beforeAll(() => loadLanguages());

  it("English answers are the same with every language loaded (the sample list's everyday requests)", () => {
    for (const query of english) expect(top(query), query).toEqual(before.get(query));
  });

  it('filler words never match and never count: a tool matching only "per" or "con" is no answer', () => {
    const tools: ToolInfo[] = [
      ...sample.tools,
      { toolKey: 'x:paginate', toolName: 'paginate', serverName: 'X', description: 'Items per page con limit' },
    ];
    expect(top('Cerca la fattura per il cliente con Stripe', tools)).toEqual([]);
    const [first] = rankTools({ query: ['Quali tabelle ci sono nel database?'], tools: sample.tools });
    // "quali", "ci", "sono", "nel" are no words of the request: 2 of 2.
    expect(first!.explanation).toContain('(2 of 2 query words)');
  });

  it('accents and hyphens are folded: "E-Mail" matches email, "calendário" calendar', () => {
    const [email] = rankTools({ query: ['Schick bitte eine E-Mail über Gmail an Bob'], tools: sample.tools });
    expect(email!.tool.toolKey).toBe('gmail:send_email');
    expect(email!.explanation).toContain('"email" (E-Mail)');
    const [calendar] = rankTools({ query: ['O que tenho no calendário amanhã?'], tools: sample.tools });
    expect(calendar!.tool.toolKey.startsWith('gcal:')).toBe(true);
    expect(calendar!.explanation).toContain('"calendar" (calendário)');
  });

  it("loanwords and cognates of the list's own words match: Tabellen, tabelle, calendario, Kalender, cancela", () => {
    expect(top('Welche Tabellen gibt es in der Datenbank?')[0]![0]).toBe('postgres:list_tables');
    expect(top('Quali tabelle ci sono nel database?')[0]![0]).toBe('postgres:list_tables');
    expect(top('Cosa ho in calendario domani?')[0]![3]).toContain('"calendar" (calendario)');
    expect(top('Was steht morgen in meinem Kalender?')[0]![3]).toContain('"calendar" (Kalender)');
    expect(top('Cancela mi reunión de las 3 de la tarde')[0]![0]).toBe('gcal:delete_event');
  });

  it('a Portuguese "no" (in the) negates nothing', () => {
    const ranked = rankTools({ query: ['Abre uma issue no GitHub com o erro'], tools: sample.tools });
    expect(ranked.some((r) => r.explanation?.includes('excluded'))).toBe(false);
    expect(ranked[0]!.tool.serverName).toBe('GitHub');
  });

  it('a request without a word that is never English is still read when three filler words say so', () => {
    // English read "no" as a negation of "Notion" and answered nothing.
    expect(top('Encontra o documento de onboarding no Notion')[0]![0]).toBe('notion:search_pages');
  });

  it("elided filler is no part of the next word: l'équipe is équipe, j'ai and qu'est-ce are filler", () => {
    const terms = (query: string) => analyzeQuery(query).terms;
    expect(terms("Qu'est-ce que j'ai dans mon calendrier demain ?")).toEqual(['calendri', 'demain']);
    expect(terms("Envoie un message à l'équipe sur Slack")).toContain('equip');
    expect(terms("Trouve le document d'onboarding dans Notion")).toContain('onboard');
    // A lone letter is no word either (Italian "i", the French "h" of hours).
    expect(analyzeQuery('Cerca tutti i PDF in Documents').readings?.words).toEqual(['Cerca', 'PDF', 'Documents']);
    const [email] = rankTools({ query: ["Manda un'e-mail a Bob"], tools: sample.tools });
    expect(email!.explanation).toContain('"email" (e-mail)');
  });
});
