// The everyday rules (issue 45): requests as people and their agents type them, on the README's sample list.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  createRankCache,
  loadLanguages,
  rankTools,
  RULE_FAMILIES,
  type RuleFamily,
  type ToolInfo,
  type ToolListSearchRequest,
} from '../src/index.js';
import { tokenize } from '../src/text/tokenize.js';
import { withinOneEdit } from '../src/languages/one-edit.js';
import { findArgumentValues } from '../src/everyday/argument-values.js';
import { lexiconKey, pairEntries } from '../src/everyday/lexicon.js';

const sample = JSON.parse(
  readFileSync(new URL('../../../examples/search-request.json', import.meta.url), 'utf8'),
) as ToolListSearchRequest;
const rank = (query: string, without?: RuleFamily[], tools: ToolInfo[] = sample.tools) =>
  rankTools({ query: [query], tools }, { without });
const keys = (query: string, without?: RuleFamily[]) => rank(query, without).map((r) => r.tool.toolKey);
const tool = (toolKey: string, description: string, extra: Partial<ToolInfo> = {}): ToolInfo => ({
  toolKey,
  toolName: toolKey.split(':')[1]!,
  serverName: toolKey.split(':')[0]!,
  description,
  ...extra,
});

describe('words as people write them', () => {
  it('"github", "GitHub" and "Github" give the same answer with the same relevance', () => {
    const answers = ['github', 'GitHub', 'Github', 'GITHUB'].map((query) =>
      rank(`list my ${query} repos`).map((r) => [r.tool.toolKey, r.relevance, r.explanation]),
    );
    expect(answers[0]!.length).toBeGreaterThan(0);
    for (const answer of answers.slice(1)) expect(answer).toEqual(answers[0]);
  });

  it('a product name is indexed whole as well as in parts, and counted once in a request', () => {
    expect(tokenize('Search GitHub repositories')).toEqual(['search', 'git', 'hub', 'github', 'repositori']);
    expect(tokenize('getFileContents')).toEqual(['get', 'file', 'content']);
    expect(tokenize('HTMLParser')).toEqual(['html', 'parser']);
    const [first] = rank('GitHub');
    expect(first!.explanation).toContain('(1 of 1 query terms)');
    expect(first!.explanation.match(/"github"/g)).toHaveLength(1);
  });

  it("a product name's parts stand in where the list lacks the whole word", () => {
    const tools = [tool('git:status', 'Show the working tree status of a git repository.'), tool('hub:x', 'Other.')];
    expect(rank('GitHub status', undefined, tools)[0]!.tool.toolKey).toBe('git:status');
  });

  it('hyphenated and closed forms meet, both ways', () => {
    expect(tokenize('Send an e-mail to sign-in users')).toEqual(['send', 'mail', 'email', 'sign', 'signin', 'user']);
    // Not in identifier chains, nor with digits.
    expect(tokenize('get-file-contents utf-8')).toEqual(['get', 'file', 'content', 'utf', '8']);
    expect(keys('send an e-mail to bob')[0]).toBe('gmail:send_email');
    expect(rank('send an e-mail to bob')[0]!.explanation).toContain('"email" (e-mail)');
    const tools = [tool('auth:login', 'Log in with a password.'), tool('auth:logout', 'End the session.')];
    expect(rank('login', undefined, tools)[0]!.tool.toolKey).toBe('auth:login');
    const closed = [tool('mail:send', 'Send an E-Mail to a contact.'), tool('chat:post', 'Post a chat message.')];
    expect(rank('send email', undefined, closed)[0]!.tool.toolKey).toBe('mail:send');
  });

  it('a closed form is read only where the list has it, also once its stem is remembered', () => {
    const withIt = [tool('auth:signup', 'Create an account (signup).'), tool('news:read', 'Read the newsletter.')];
    const without = [tool('auth:register', 'Create an account.'), tool('news:read', 'Read the newsletter.')];
    const explained = (tools: ToolInfo[], cache = createRankCache()) =>
      rankTools({ query: ['sign up for the newsletter'], tools }, { cache })
        .map((r) => r.explanation)
        .join(' ');
    const cacheWithout = createRankCache();
    expect(explained(without, cacheWithout)).not.toContain('signup');
    expect(explained(withIt)).toContain('"signup" (sign)');
    expect(explained(without, cacheWithout)).not.toContain('signup');
    expect(explained(withIt)).toContain('"signup" (sign)');
  });
});

describe('the lexicon: the tool world’s short forms and everyday words', () => {
  it('abbreviations match what they stand for, and the explanation names the mapping', () => {
    const [first] = rank('search github repos');
    expect(first!.tool.toolKey).toBe('github:search_repositories');
    expect(first!.explanation).toContain('"repository" (repos)');
    expect(keys('what tables are in the db')[0]).toBe('postgres:list_tables');
    expect(keys('whats in my downloads dir')[0]).toBe('filesystem:list_directory');
  });

  it('everyday verbs and nouns find the API’s: make a folder, cancel or move a meeting', () => {
    expect(keys('make a new folder')[0]).toBe('filesystem:create_directory');
    expect(keys('cancel my 3pm meeting')[0]).toBe('gcal:delete_event');
    expect(keys("move tomorrow's standup to 10am")[0]).toBe('gcal:update_event');
    expect(keys('look up mcp news online')[0]).toBe('brave-search:web_search');
  });

  it('"open a pull request" puts create_pull_request first', () => {
    expect(keys('open a pull request')[0]).toBe('github:create_pull_request');
    expect(keys('open a pull request', ['verbs'])[0]).toBe('github:merge_pull_request');
  });

  it('a phrase stands for a word only where all of it is: "google" is a web search, not any search', () => {
    const [first] = rank('google the node 22 release notes');
    expect(first!.tool.toolKey).toBe('brave-search:web_search');
    for (const result of rank('google the node 22 release notes'))
      if (result.tool.toolKey === 'notion:search_pages') expect(result.explanation).not.toContain('(google)');
  });

  it('the words of an idiom count only as what it means: "get rid of" deletes, it does not get', () => {
    const tools = [
      tool('files:get_file_info', 'Get information about a file.'),
      tool('files:delete_file', 'Delete a file.'),
    ];
    const ranked = rank('get rid of the old report file', undefined, tools);
    expect(ranked[0]!.tool.toolKey).toBe('files:delete_file');
    expect(ranked[0]!.explanation).toContain('"delete" (get rid)');
    expect(ranked.find((r) => r.tool.toolKey === 'files:get_file_info')?.explanation ?? '').not.toContain('"get"');
  });

  it('two-word entries are found from their first word, also one written with a hyphen', () => {
    expect(pairEntries(lexiconKey('look'), lexiconKey('up')).map((entry) => entry.family)).toEqual(['verbs']);
    expect(pairEntries(lexiconKey('Log'), lexiconKey('in')).map((entry) => entry.family)).toEqual(['nouns']);
    // "to-do" is keyed "to do"; "whats on" is written "what's on".
    expect(pairEntries(lexiconKey('to'), lexiconKey('do')).map((entry) => entry.family)).toEqual(['abbreviations']);
    expect(pairEntries(lexiconKey("What's"), lexiconKey('on'))).toHaveLength(1);
    // A first word that starts no pair, and a pair the lexicon does not have.
    expect(pairEntries(lexiconKey('repo'), lexiconKey('up'))).toEqual([]);
    expect(pairEntries(lexiconKey('look'), lexiconKey('down'))).toEqual([]);
  });

  it('a negated word finds its "un" form: "isn\'t staged" reads as unstaged', () => {
    const tools = [
      tool('git:git_diff_unstaged', 'Shows changes in the working directory.'),
      tool('git:git_commit', 'Records changes to the repository.'),
    ];
    const [first] = rank("what did I change that isn't staged yet?", undefined, tools);
    expect(first!.tool.toolKey).toBe('git:git_diff_unstaged');
    expect(first!.explanation).toContain('"unstaged" (not staged)');
    expect(rank("what did I change that isn't staged yet?", ['joins'], tools)[0]!.tool.toolKey).toBe('git:git_commit');
  });

  it('a repository slug counts as a repository, not as its words', () => {
    expect(keys("what's in the docs folder of the acme/web repo")[0]).toBe('github:get_file_contents');
    for (const result of rank('what bugs are still open in acme/web?'))
      expect(result.explanation).not.toMatch(/"web"(?! search)/);
  });

  it('a request’s own word still beats a reading of another word', () => {
    // "message" is the tool's own word; "post" would only be a reading of "send".
    expect(keys('post a message to slack')[0]).toBe('slack:post_message');
  });
});

describe('argument values: what a tool acts on counts as its kind, not as words', () => {
  const kinds = (text: string) => findArgumentValues(text).map((value) => [value.text, value.kind]);

  it('finds URLs, addresses, domains, file names, paths, quotes and arithmetic, and nothing else', () => {
    expect(kinds('go to https://news.ycombinator.com.')).toEqual([['https://news.ycombinator.com', 'url']]);
    expect(kinds('mail jane@acme.com about example.org')).toEqual([
      ['jane@acme.com', 'email'],
      ['example.org', 'domain'],
    ]);
    expect(kinds('open ~/notes/todo.txt and /var/log, C:\\Users\\me')).toEqual([
      ['~/notes/todo.txt', 'file'],
      ['/var/log', 'directory'],
      ['C:\\Users\\me', 'directory'],
    ]);
    expect(kinds('save it as "weekly report" and compute 17% of 2350 or 3 * 7')).toEqual([
      ['"weekly report"', 'quote'],
      ['17% of 2350', 'arithmetic'],
      ['3 * 7', 'arithmetic'],
    ]);
    // A repository as code hosts name it; its owner has no dot (youtu.be/abc is a link's host and path).
    expect(kinds('file a bug in acme/web and read vercel/next.js')).toEqual([
      ['acme/web', 'repository'],
      ['vercel/next.js', 'repository'],
    ]);
    // Look-alikes: either/or, a unit, a date, a version, an abbreviation, a quoted single word.
    for (const text of [
      'read and/or write',
      'at 9km/hr',
      'on 2023-10-05',
      '24/7 uptime',
      'v1.2',
      'e.g. this',
      "tag 'ERROR'",
      "what's up",
    ])
      expect(kinds(text)).toEqual([]);
  });

  it('a request without a quote mark, digit, slash, @, backslash or dot has no value; each still finds its own', () => {
    expect(kinds('search the web for recent news about electric cars and save a summary to a file')).toEqual([]);
    // Each with only the character its pattern needs.
    expect(kinds('write "weekly report" to it')).toEqual([['"weekly report"', 'quote']]);
    expect(kinds('write ‘weekly report’ to it')).toEqual([['‘weekly report’', 'quote']]);
    expect(kinds('what is 3 * 7')).toEqual([['3 * 7', 'arithmetic']]);
    expect(kinds('open acme/web')).toEqual([['acme/web', 'repository']]);
    expect(kinds('list /var')).toEqual([['/var', 'directory']]);
    expect(kinds('open D:\\Reports')).toEqual([['D:\\Reports', 'directory']]);
    expect(kinds('read notes.md')).toEqual([['notes.md', 'file']]);
    expect(kinds('mail jane@acme.com')).toEqual([['jane@acme.com', 'email']]);
  });

  it("a URL's pieces match nothing; the URL counts as a url, and the explanation names it", () => {
    const tools = [
      tool('web:navigate', 'Navigate the browser to a URL.'),
      tool('stocks:price', 'Price of a stock. Data from https://finance.example.com, see docs at example.com.'),
    ];
    const [first] = rank('go to https://news.ycombinator.com', undefined, tools);
    expect(first!.tool.toolKey).toBe('web:navigate');
    expect(first!.explanation).toContain('"url" (https://news.ycombinator.com)');
    expect(rank('go to https://news.ycombinator.com', ['values'], tools)[0]!.tool.toolKey).toBe('stocks:price');
  });

  it('a path keeps its folder and file names as words, and counts as a file or directory besides', () => {
    const tools = [
      tool('excel:read_sheet', 'Read a sheet of an Excel workbook.'),
      tool('fs:list_directory', 'List the entries of a directory.'),
      tool('notes:create_note', 'Create a note.'),
    ];
    expect(rank('read /root/excel/sales.xlsx', undefined, tools)[0]!.tool.toolKey).toBe('excel:read_sheet');
    expect(rank('show me what is in ~/Downloads', undefined, tools)[0]!.tool.toolKey).toBe('fs:list_directory');
  });

  it('a question with arithmetic finds the calculator, and quoted words still count', () => {
    const tools = [tool('calc:calculate', 'Calculate a math expression.'), tool('tasks:close', 'Close a task.')];
    expect(rank("what's 17% of 2350", undefined, tools)[0]!.tool.toolKey).toBe('calc:calculate');
    expect(rank("what's 17% of 2350", ['values'], tools)).toEqual([]);
    expect(rank("close the 'pay rent' task", undefined, tools)[0]!.tool.toolKey).toBe('tasks:close');
  });
});

describe('typos: a word one slip from a word of the list reads as it', () => {
  it('"calender" and "wether" find the tools their words were meant for, and the explanation says so', () => {
    const [first] = rank('calender for next week');
    expect(first!.tool.toolKey).toBe('gcal:list_events');
    expect(first!.explanation).toContain('"calendar" (calender)');
    const weather = [
      tool('weather:get_forecast', 'Weather forecast for a city.'),
      tool('maps:route', 'Route between places.'),
    ];
    expect(rank('wether in paris', undefined, weather)[0]!.tool.toolKey).toBe('weather:get_forecast');
    expect(rank('calender for next week', ['typos'])).toEqual([]);
  });

  it('guesses only for words the list lacks, long enough to guess, never a name into a word', () => {
    // "paris" is one swap from "pair" (a word of this list), but a short stem is not guessed.
    const tools = [tool('math:pair', 'Pair two numbers.'), tool('math:sum', 'Sum numbers.')];
    expect(rank('paris', undefined, tools)).toEqual([]);
    // A word the list has is never read as another.
    expect(rank('list events', undefined, sample.tools)[0]!.explanation).not.toContain('(list)');
  });

  it('a list remembers its guesses: the same answers with the memo as without, and its bytes counted', () => {
    const cache = createRankCache();
    const requests = ['calender for next week', 'send an emial to bob', 'calender and emial', 'reposotory of acme'];
    // The memo's bytes are counted in the cache once a guess was made; no guess, no memo.
    rankTools({ query: ['list events'], tools: sample.tools }, { cache });
    const before = cache.bytes;
    for (const round of [1, 2])
      for (const request of requests) {
        const warm = rankTools({ query: [request], tools: sample.tools }, { cache });
        const fresh = rankTools({ query: [request], tools: sample.tools });
        expect(warm, `${request} (round ${round})`).toEqual(fresh);
      }
    expect(cache.bytes).toBeGreaterThan(before);
    // A request's own word is never its guess, whatever the memo holds: "calendar" itself is searched.
    expect(rankTools({ query: ['calendar calender'], tools: sample.tools }, { cache })[0]!.explanation).not.toContain(
      '(calender)',
    );
  });

  it('one edit is an insertion, a deletion, a substitution or a swap of neighbours', () => {
    expect(withinOneEdit('calender', 'calendar')).toBe(true);
    expect(withinOneEdit('screensot', 'screenshot')).toBe(true);
    expect(withinOneEdit('reposotory', 'repository')).toBe(true);
    expect(withinOneEdit('recieve', 'receive')).toBe(true);
    expect(withinOneEdit('calendar', 'calendar')).toBe(false);
    expect(withinOneEdit('calndr', 'calendar')).toBe(false);
    expect(withinOneEdit('abcd', 'badc')).toBe(false);
  });
});

describe('an everyday verb is read as the API’s only where a command’s verb stands', () => {
  it('"open" first in a request means create; "open" as a state does not', () => {
    expect(keys('open an issue on github')[0]).toBe('github:create_issue');
    expect(keys('please open a new issue')[0]).toBe('github:create_issue');
    for (const result of rank('what bugs are still open in acme/web?'))
      expect(result.explanation).not.toContain('(open)');
  });

  it('a verb after "to" or at the start of a later clause counts too', () => {
    expect(keys('I need to cancel my 3pm meeting')[0]).toBe('gcal:delete_event');
    expect(keys('check the calendar and then cancel the standup')[0]).toBe('gcal:delete_event');
  });
});

describe('intent: a request that asks to see prefers tools that read', () => {
  it('"what\'s on my calendar tomorrow" puts list_events first and delete_event below every reading tool', () => {
    const ranked = keys("what's on my calendar tomorrow");
    expect(ranked[0]).toBe('gcal:list_events');
    const deleteAt = ranked.indexOf('gcal:delete_event');
    for (const reader of ['gcal:list_events', 'gcal:find_free_time'])
      expect(ranked.indexOf(reader)).toBeLessThan(deleteAt);
  });

  it('a question about many of something prefers the tool that lists them', () => {
    expect(keys('what channels do we have on slack?')[0]).toBe('slack:list_channels');
    expect(keys('what channels do we have on slack?', ['intent'])[0]).toBe('slack:get_channel_history');
    // A request for a change is not about listing, plural or not.
    expect(keys('post to the channels on slack')[0]).toBe('slack:post_message');
  });

  it('a question in Japanese or Chinese, with its full-width mark, keeps delete_event below the reading tools', async () => {
    await loadLanguages(['ja', 'zh']);
    for (const question of ['明日のカレンダーの予定は？', '明天我的日历上有什么？']) {
      const ranked = keys(question);
      expect(ranked[0]).toBe('gcal:list_events');
      expect(ranked.indexOf('gcal:delete_event')).toBeGreaterThan(ranked.indexOf('gcal:find_free_time'));
    }
  });

  it('a tool marked destructive is never first for a question, whatever it is named', () => {
    const tools = [
      tool('cal:purge_calendar', 'Calendar events: purge them all.', { annotations: { destructiveHint: true } }),
      tool('cal:agenda', 'Calendar agenda view.', { annotations: { readOnlyHint: true } }),
    ];
    expect(rank('what is on my calendar?', undefined, tools)[0]!.tool.toolKey).toBe('cal:agenda');
    expect(rank('purge my calendar', undefined, tools)[0]!.tool.toolKey).toBe('cal:purge_calendar');
  });
});

describe("a tool's action is the first word of its name after its server's name", () => {
  const tools = [
    tool('discord:discord_delete_message', 'Delete messages of the general channel: messages, channel messages.'),
    tool('discord:discord_read_messages', 'Read messages of a channel.'),
    tool('git:git_diff_staged', 'Shows the staged changes.'),
    tool('git:git_commit', 'Records changes to the repository.'),
    tool('excel-search:search_in_excel', 'Looks in an Excel workbook for a value.'),
  ];

  it('a question never gets discord_delete_message first: it deletes, though its name starts with discord', () => {
    const ranked = rank('what messages are in the general channel?', undefined, tools).map((r) => r.tool.toolKey);
    expect(ranked[0]).toBe('discord:discord_read_messages');
  });

  it('"commit the staged changes" prefers git_commit; a verb in the server name is still the action', () => {
    expect(rank('commit the staged changes', undefined, tools)[0]!.tool.toolKey).toBe('git:git_commit');
    expect(rank('search excel for invoice 1043', undefined, tools)[0]!.tool.toolKey).toBe(
      'excel-search:search_in_excel',
    );
  });
});

describe('relevance that separates a vague request from a precise one', () => {
  it('"slack" alone gives no tool a relevance above 0.7, and says why', () => {
    const ranked = rank('slack');
    expect(ranked.length).toBe(7);
    for (const result of ranked) expect(result.relevance).toBeLessThanOrEqual(0.7);
    expect(ranked[0]!.explanation).toContain('names its server only');
    expect(rank('slack', ['vague'])[0]!.relevance).toBeGreaterThan(0.9);
  });

  it('a request that names the action is well above one that names only the server', () => {
    const vague = rank('github')[0]!.relevance;
    const precise = rank('create an issue on github')[0]!.relevance;
    expect(precise - vague).toBeGreaterThan(0.3);
  });

  it('an exact tool name still puts that tool first', () => {
    expect(keys('get_file_contents')[0]).toBe('github:get_file_contents');
    expect(keys('list_events from 2025-03-01 to 2025-03-07')[0]).toBe('gcal:list_events');
  });
});

describe('each family can be left out, for measuring it', () => {
  it('with every family left out, a request the rules change ranks as plain BM25F words', () => {
    const all = [...RULE_FAMILIES];
    expect(keys('whats in my downloads dir', all)).toEqual([]);
    expect(keys('send an e-mail to bob', all)[0]).toBe('gmail:send_email');
    expect(rank('send an e-mail to bob', all)[0]!.explanation).not.toContain('e-mail');
  });

  it('a request no rule touches ranks identically with and without the rules', () => {
    const query = 'reply in the thread of a slack message';
    expect(rank(query).map((r) => [r.tool.toolKey, r.relevance, r.explanation])).toEqual(
      rank(query, [...RULE_FAMILIES]).map((r) => [r.tool.toolKey, r.relevance, r.explanation]),
    );
  });
});

describe("the README's everyday example", () => {
  it('answers as the README shows it', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const example = /jq '\.query = \["([^"]+)"\]'[^\n]*\n((?:# \[.*\n)+)/.exec(readme);
    expect(example).not.toBeNull();
    const shown = example![2]!
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line.slice(2)) as unknown);
    const answer = rank(example![1]!).slice(0, shown.length);
    expect(answer.map((r) => [r.tool.toolKey, r.relevance, r.explanation])).toEqual(shown);
  });

  it("answers the sample request body as the README's first answer shows it", () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const shown = [
      ...readme.matchAll(
        /"toolKey": "([^"]+)", "toolName": "[^"]+", "serverName": "[^"]+", "relevance": ([0-9.]+),\s*"description": "[^"]*",\s*"explanation": "((?:[^"\\]|\\.)*)"/g,
      ),
    ]
      .slice(0, 2)
      .map((m) => [m[1], Number(m[2]), JSON.parse(`"${m[3]}"`) as string]);
    expect(shown).toHaveLength(2);
    const answer = rankTools({ query: sample.query, tools: sample.tools, context: sample.context }, { limit: 2 });
    expect(answer.map((r) => [r.tool.toolKey, r.relevance, r.explanation])).toEqual(shown);
  });
});
