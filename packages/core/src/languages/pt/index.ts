import { latinLanguage } from '../latin-language.js';

/** Portuguese, read without a dictionary (latin-language.ts): filler words dropped, cognates of the list's words. */
export const language = latinLanguage({
  code: 'pt',
  filler: 'por favor pode podes poderia mostra mostre me dá dê quero preciso ajuda aqui agora ele ela eles te',
  // informação → information, cidade → city, calendário → calendar, mensagem → message, tabela → table.
  endings: [
    ['ções', 'tion'],
    ['ção', 'tion'],
    ['coes', 'tion'],
    ['cao', 'tion'],
    ['dade', 'ty'],
    ['ario', 'ary'],
    ['arios', 'ary'],
    ['agem', 'age'],
    ['ico', 'ic'],
    ['ica', 'ic'],
    ['ivo', 'ive'],
    ['elas', 'le'],
    ['ela', 'le'],
    ['os', ''],
    ['as', ''],
    ['es', ''],
    ['o', ''],
    ['a', ''],
    ['e', ''],
  ],
});
