/**
 * Word lists that stand in for document frequencies the local embedder cannot learn: function
 * words carry almost no meaning, very common chat words little, everything else (names,
 * numbers, rare nouns) the most.
 */

/** English function words (pronouns, articles, auxiliaries, prepositions, question words). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are as at be because been before being
  below between both but by can could did do does doing done down during each either else ever
  every few for from further had has have having he her here hers herself him himself his how i
  if in into is it its itself just me might mine more most must my myself no nor not now of off
  on once only or other ought our ours ourselves out over own same shall she should so some such
  than that the their theirs them themselves then there these they this those through to too
  under until up upon us very was we were what whatever when whenever where wherever whether
  which while who whom whose why will with within without would yet you your yours yourself
  yourselves s t d ll m re ve o y isn aren wasn weren don doesn didn wouldn shouldn couldn
  cannot let lets may dont doesnt didnt cant isnt arent wasnt im ive youre theyre thats whats
  shan hi hey hello ok okay please thanks thank yes yeah oh also really actually maybe perhaps
  quite rather still even though although however anyway well`
    .split(/\s+/)
    .filter((word) => word !== ''),
);

/**
 * Content words so frequent in chat that sharing them says little about sharing a topic
 * (lowercase surface forms; the embedder also checks their stems).
 */
export const COMMON_WORDS: ReadonlySet<string> = new Set(
  `get got getting gets make made makes making go goes going went gone come came comes coming
  take took taken takes know knew known knows think thought thinks want wanted wants need needed
  needs like liked likes look looked looks see saw seen sees say said says tell told tells use
  used uses using try tried tries give gave given gives find found put keep kept let seem seemed
  feel felt thing things stuff something anything nothing everything someone anyone everyone
  one two way ways lot lots bit kind sort good great nice fine bad better best sure right okay
  time times day days today new old many much little last next first back again always never
  often usually sometimes already soon later just around way able done thanks
  question answer mean means said doing tell please can could would`
    .split(/\s+/)
    .filter((word) => word !== ''),
);
