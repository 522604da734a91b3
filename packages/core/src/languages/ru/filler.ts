/**
 * Russian words that say nothing of which tool fits (written by the catalog-search team from general
 * knowledge of the language, Apache-2.0; no stop-word list was copied): pronouns and possessives,
 * prepositions, conjunctions and particles, the commonest verbs of asking and being, politeness. As
 * English's stop words, they never match and never count as words of a request. Negations ("не", "без")
 * are here too: a Russian request's negation is not read (English's NEGATIONS are English words).
 */
export const RUSSIAN_FILLER: ReadonlySet<string> = new Set(
  // Pronouns and possessives, in their cases.
  (
    'я меня мне мной мы нас нам нами ты тебя тебе тобой вы вас вам вами он его него ему нему им ним нем ' +
    'она ее её неё нее ей ней ею оно они их них ими ними себя себе собой ' +
    'мой моя мое моё мои моего моей моему моим моих мою моими твой твоя твое твоё твои твоего твоей твою ' +
    'ваш ваша ваше ваши вашего вашей вашу ваших наш наша наше наши нашего нашей нашу наших ' +
    'свой своя свое своё свои своего своей свою своих ' +
    // Demonstratives, questions and quantifiers.
    'это этот эта эти этого этой этому этим этих эту тот та то те того той тому тем тех ту ' +
    'что чего чему чем чём кто кого кому кем ком какой какая какое какие какого какой каких какую каким ' +
    'который которая которое которые которого которой которых где куда откуда когда как почему зачем ' +
    'сколько весь вся все всё всего всей всех всем всеми каждый каждая каждое ' +
    // Prepositions, conjunctions, particles.
    'в во на с со к ко по о об обо от из у за для до при про без над под перед через между ' +
    'и или а но да не ни же ли бы ведь вот вон уж уже еще ещё тоже также либо если то чтобы ' +
    'там тут здесь сейчас теперь просто только очень ну ок окей ' +
    // Asking and being: can you, please, I need, I want, help me, let us, there is.
    'пожалуйста плиз можешь можете можно мог могла могли нужно надо нужен нужна нужны хочу хотел хотела ' +
    'хотим помоги помогите давай давайте есть был была было были будет будут быть является'
  ).split(' '),
);
