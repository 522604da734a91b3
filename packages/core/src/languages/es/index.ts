import { latinLanguage } from '../latin-language.js';

/** Spanish, read without a dictionary (latin-language.ts): filler words dropped, cognates of the list's words. */
export const language = latinLanguage({
  code: 'es',
  filler:
    'por favor puedes podrías muéstrame muestra dame quiero necesito ayúdame ayuda aquí ahora él ella ellos me te nos',
  // información → information, ciudad → city, calendario → calendar, archivo → archive, tabla → table.
  endings: [
    ['ciones', 'tion'],
    ['ción', 'tion'],
    ['cion', 'tion'],
    ['dad', 'ty'],
    ['ario', 'ary'],
    ['arios', 'ary'],
    ['ico', 'ic'],
    ['ica', 'ic'],
    ['ivo', 'ive'],
    ['bla', 'ble'],
    ['blas', 'ble'],
    ['ar', 'ate'],
    ['os', ''],
    ['as', ''],
    ['es', ''],
    ['o', ''],
    ['a', ''],
    ['e', ''],
  ],
});
