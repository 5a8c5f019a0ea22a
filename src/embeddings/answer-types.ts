/**
 * What kind of answer a question word asks for, and the words and numbers that give one: "when"
 * meets "Tuesday", "7:40" and "2015"; "how much" meets "1,450". Question words are stop words,
 * so this is most of what they contribute. Any change here changes vectors: bump
 * LOCAL_EMBEDDER_VERSION in local-embedder.ts.
 */
export const ANSWER_TYPES: Readonly<Record<string, string>> = {
  time: `when date time schedule day days week weekend month year today tomorrow yesterday tonight
    morning afternoon evening night monday tuesday wednesday thursday friday saturday sunday january
    february march april june july august september october november december spring summer autumn
    winter`,
  amount: 'much many cost costs price total amount number',
  place: 'where place location address city town country street',
  person: 'who whom whose person people',
};
