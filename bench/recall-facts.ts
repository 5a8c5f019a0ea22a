/**
 * The facts bench/recall.ts plants early in a conversation and asks about late. Written for this
 * benchmark (not taken from bench/embedder-dataset.ts, which the local embedder was tuned on).
 * Each kind has a pool of values so conversations differ, statements in which `{v}` is the value,
 * a lexical question (reuses the statement's key words) and a paraphrased one (other words), and
 * distractor lines: everyday chatter that shares words with the fact but never holds its value.
 */

/** One kind of fact a user might mention once and expect to be remembered. */
export interface FactKind {
  id: string;
  /** Values the fact can take; the one planted must reach upstream for the fact to count as recalled. */
  values: readonly string[];
  /** How the value is recognised in what upstream received, when not the value itself. */
  check?: (value: string) => string;
  /** Ways to state the fact; `{v}` is replaced by the value. */
  statements: readonly string[];
  /** A question reusing the statement's key words. */
  lexical: string;
  /** The same question in other words. */
  paraphrased: string;
  /** Filler that shares words with the fact (and may name other values), never the planted value. */
  distractors: readonly string[];
}

/** The last word of a value: the part that is distinctive ("5 mg of amlodipine" -> "amlodipine"). */
const lastWord = (value: string): string => value.split(' ').at(-1) ?? value;

/** Every kind of fact, in a fixed order (a conversation picks a seeded subset). */
export const FACT_KINDS: readonly FactKind[] = [
  {
    id: 'dog-name',
    values: ['Pumpernickel', 'Waffles', 'Noodle', 'Bramble', 'Truffle', 'Marzipan'],
    statements: [
      'We finally adopted a rescue greyhound last month, {v} already owns the sofa.',
      'Big news at home: a rescue greyhound joined us, {v}, and she sleeps twenty hours a day.',
    ],
    lexical: 'What is the rescue greyhound we adopted named?',
    paraphrased: "What's our dog's name again?",
    distractors: [
      'Do greyhounds need a lot of exercise or are they lazy at home?',
      "My neighbour's spaniel Rocket barked at the postman all morning.",
      'Is it normal for a rescue animal to be shy for the first few weeks?',
    ],
  },
  {
    id: 'bike-lock',
    values: ['3917', '6248', '7351', '2864', '5193', '8426'],
    statements: [
      'Note to self: the combination for my bike lock is {v}.',
      'I changed the combination on my bike lock to {v}, so I stop forgetting it.',
    ],
    lexical: "What's the combination for my bike lock?",
    paraphrased: 'Which digits open the padlock on my bicycle?',
    distractors: [
      'Is a D-lock really better than a chain for a bike in the city?',
      'Someone cut the lock on a bike outside my office yesterday.',
      'What should I check on my bike before a long ride?',
    ],
  },
  {
    id: 'sister-city',
    values: ['Tallinn', 'Porto', 'Ljubljana', 'Gdansk', 'Trieste', 'Antwerp'],
    statements: [
      'My sister Ingrid just moved to {v} for a new job at a museum.',
      'Ingrid, my sister, has relocated to {v}; the museum there hired her as a curator.',
    ],
    lexical: 'Which city did my sister Ingrid move to for the museum job?',
    paraphrased: 'Where is my sibling living these days?',
    distractors: [
      'Any tips for visiting a museum with kids without them getting bored?',
      'My sister keeps sending me photos of her new flat.',
      'How do people usually handle moving abroad for a job?',
    ],
  },
  {
    id: 'allergy',
    values: ['shellfish', 'sesame', 'kiwi', 'buckwheat', 'celery', 'lupin'],
    statements: [
      "I'm allergic to {v}, so please keep it out of any recipe ideas.",
      'Quick warning for recipes: I have an allergy to {v}, even a little makes me ill.',
    ],
    lexical: 'What am I allergic to, the thing to keep out of recipes?',
    paraphrased: 'Which food gives me a bad reaction?',
    distractors: [
      'What is the difference between an intolerance and an allergy?',
      'My colleague is allergic to cats and sneezes all day.',
      'Can you suggest a recipe that is quick and cheap?',
    ],
  },
  {
    id: 'employer',
    values: [
      'Fernwood Logistics',
      'Halcyon Robotics',
      'Brightwater Analytics',
      'Quillfeather Press',
      'Northgate Insurance',
      'Tidewell Energy',
    ],
    statements: [
      'I accepted the offer from {v}, I start as a data analyst in two weeks.',
      'Signed the contract with {v} today: data analyst, starting in a fortnight.',
    ],
    lexical: 'Which company did I accept the data analyst offer from?',
    paraphrased: 'Who is my new employer?',
    distractors: [
      'How do I negotiate a job offer without sounding greedy?',
      'What skills does a data analyst need these days?',
      'My friend got an offer from a startup but the pay is low.',
    ],
  },
  {
    id: 'husband-birthday',
    values: [
      'March 3rd',
      'July 21st',
      'September 9th',
      'November 27th',
      'May 16th',
      'January 30th',
    ],
    statements: [
      'My husband Tobias turns forty on {v}, I want to plan something special.',
      'Tobias, my husband, turns forty on {v} and I have no idea what to plan.',
    ],
    lexical: 'When does my husband Tobias turn forty?',
    paraphrased: "What date is my spouse's birthday?",
    distractors: [
      'What are good ideas for a fortieth party that is not cheesy?',
      'My husband wants a quiet weekend, I want to go out.',
      'How do you plan a surprise without the other person noticing?',
    ],
  },
  {
    id: 'holiday',
    values: ['Sardinia', 'Crete', 'Madeira', 'Corsica', 'Sicily', 'Menorca'],
    statements: [
      'We booked two weeks in {v} for the summer holidays, flights already paid.',
      'Summer holidays are sorted: two weeks in {v}, booked and paid.',
    ],
    lexical: 'Where did we book two weeks for the summer holidays?',
    paraphrased: 'Where are we going on vacation this year?',
    distractors: [
      'Is it worth getting travel insurance for a short trip?',
      'My cousin booked a cruise and regretted it.',
      'What should I pack for two weeks somewhere hot?',
    ],
  },
  {
    id: 'car',
    values: [
      'Mazda CX-5',
      'Skoda Octavia',
      'Subaru Outback',
      'Kia Niro',
      'Volvo V60',
      'Toyota Corolla',
    ],
    statements: [
      'I finally bought a used {v}, dark blue with only forty thousand miles on it.',
      'Got myself a second-hand {v} this week, dark blue, low mileage.',
    ],
    lexical: 'Which used car did I buy, the dark blue one?',
    paraphrased: 'What vehicle do I drive now?',
    distractors: [
      'How often should I change the oil in a used car?',
      'My brother drives an old Ford Fiesta that never breaks down.',
      'Is dark paint harder to keep clean?',
    ],
  },
  {
    id: 'favourite-novel',
    values: [
      'The Remains of the Day',
      'Piranesi',
      'A Gentleman in Moscow',
      'The Name of the Wind',
      'Stoner',
      'Circe',
    ],
    statements: [
      "The best novel I've ever read is {v}, I reread it every winter.",
      'Every winter I reread {v}; nothing else comes close.',
    ],
    lexical: "What's the novel I reread every winter?",
    paraphrased: 'Which book is my all-time favourite?',
    distractors: [
      'Can you recommend a short novel for a long train ride?',
      'My book club picked a thriller this month and I hate it.',
      'Do audiobooks count as reading?',
    ],
  },
  {
    id: 'guest-wifi',
    values: [
      'tangerine-otter-58',
      'maple-comet-31',
      'quiet-harbor-94',
      'paper-falcon-27',
      'velvet-canyon-63',
    ],
    statements: [
      'The password for the guest wifi at our place is {v}.',
      'Guest wifi: the password is {v}, if someone asks.',
    ],
    lexical: "What's the guest wifi password at our place?",
    paraphrased: 'How do friends who come round get on the internet at my house?',
    distractors: [
      'Why does the wifi keep dropping in the evening?',
      'How do I make a strong password I can actually remember?',
      'My router light is blinking orange, what does that mean?',
    ],
  },
  {
    id: 'gp-name',
    values: ['Adeyemi', 'Kowalczyk', 'Nakamura', 'Lindqvist', 'Okonkwo', 'Ferreira'],
    statements: [
      "My new GP is Dr. {v}, she's at the Elm Street practice.",
      'I registered with Dr. {v} at the Elm Street practice, she seems thorough.',
    ],
    lexical: 'What is the name of my new GP at the Elm Street practice?',
    paraphrased: 'Who is my family physician?',
    distractors: [
      'How long do you usually wait for a GP appointment?',
      'My dentist moved to a new practice across town.',
      'Should I see a doctor for a cough that lasts two weeks?',
    ],
  },
  {
    id: 'swim-lengths',
    values: ['42', '64', '36', '58', '72', '48'],
    statements: [
      'I swim {v} lengths at the leisure centre every Tuesday and Thursday.',
      'My routine at the leisure centre: {v} lengths, Tuesdays and Thursdays.',
    ],
    lexical: 'How many lengths do I swim at the leisure centre?',
    paraphrased: 'How far do I go in the pool each session?',
    distractors: [
      'Is swimming better than running for bad knees?',
      'The leisure centre changed its opening hours again.',
      'How do I stop my goggles fogging up?',
    ],
  },
  {
    id: 'daughter-school',
    values: ['Oakhill', 'Hazelmere', 'Larkfield', 'Millbrook', 'Ashcombe', 'Fernlea'],
    statements: [
      'My daughter Freya starts year one at {v} Primary in September.',
      'Freya got her place: {v} Primary, starting year one this September.',
    ],
    lexical: 'Which primary school does my daughter Freya start at in September?',
    paraphrased: 'Where is my little girl going to be educated?',
    distractors: [
      'How do I help a child settle into a new school?',
      'The school run is chaos on rainy mornings.',
      'What should a five year old be able to read?',
    ],
  },
  {
    id: 'grant-deadline',
    values: ['the 17th of April', 'the 2nd of June', 'the 28th of February', 'the 11th of October'],
    statements: [
      'The grant application has to be submitted by {v}, no extensions.',
      'Hard deadline for the grant application: {v}. They do not give extensions.',
    ],
    lexical: 'When does the grant application have to be submitted?',
    paraphrased: "What's the cutoff date for the funding proposal?",
    distractors: [
      'How do I write a project summary that reviewers actually read?',
      'My colleague missed a deadline and nobody noticed.',
      'Any tips for staying focused on a long application?',
    ],
  },
  {
    id: 'evening-language',
    values: ['Korean', 'Dutch', 'Turkish', 'Swahili', 'Polish', 'Icelandic'],
    statements: [
      "I've started evening classes in {v}, twice a week at the community college.",
      'Twice a week I now go to {v} evening classes at the community college.',
    ],
    lexical: 'Which evening classes did I start at the community college?',
    paraphrased: 'What language am I studying?',
    distractors: [
      'Is it easier to learn a language with an app or a teacher?',
      'The community college car park is always full.',
      'How many words do you need to hold a basic conversation?',
    ],
  },
  {
    id: 'dad-hospital',
    values: ['Kingsbridge', 'Fairview', 'Westmoor', 'Harrowgate', 'Pennington'],
    statements: [
      "My dad had a hip replacement on Monday at {v} hospital, he's doing okay.",
      'Dad is recovering after his hip replacement at {v} hospital on Monday.',
    ],
    lexical: 'Which hospital did my dad have his hip replacement at?',
    paraphrased: 'Where was my father operated on?',
    distractors: [
      'How long does recovery from a hip operation usually take?',
      'Hospital parking charges are ridiculous.',
      'My dad refuses to use a walking stick.',
    ],
  },
  {
    id: 'cat-name',
    values: ['Figaro', 'Bartholomew', 'Ziggy', 'Marmalade', 'Archibald', 'Nimbus'],
    statements: [
      'Our cat {v} knocked a glass off the table again this morning.',
      '{v}, our cat, pushed another glass off the table at breakfast.',
    ],
    lexical: 'Which of our cats knocks glasses off the table?',
    paraphrased: 'What is our kitty called?',
    distractors: [
      'Why do cats push things off tables?',
      "My friend's cat Smudge only eats one brand of food.",
      'How do I stop a cat scratching the sofa?',
    ],
  },
  {
    id: 'pescatarian-since',
    values: ['2014', '2017', '2011', '2009'],
    statements: [
      "I've been pescatarian since {v}.",
      'Since {v} I have been pescatarian, fish but nothing else.',
    ],
    lexical: 'Since when have I been pescatarian?',
    paraphrased: 'How long ago did I give up eating meat?',
    distractors: [
      'Is salmon or mackerel healthier?',
      'My flatmate went vegan and cooks amazing curries.',
      'How do I get enough protein without much meat?',
    ],
  },
  {
    id: 'montreal-flight',
    values: ['6:35', '7:05', '9:50', '11:25', '14:10'],
    statements: [
      'My flight to Montreal leaves at {v} on Friday, I need to be at the airport early.',
      'Friday I fly to Montreal, departure {v}, so an early start.',
    ],
    lexical: 'What time does my flight to Montreal leave on Friday?',
    paraphrased: 'When do I take off for Canada?',
    distractors: [
      'How early should I get to the airport for an international flight?',
      'My last flight was delayed four hours.',
      'What is the best way to beat jet lag?',
    ],
  },
  {
    id: 'project-codename',
    values: ['Bluebell', 'Kestrel', 'Driftwood', 'Obsidian', 'Marigold', 'Tamarack'],
    statements: [
      "Our team's new project is code-named {v}, keep it confidential.",
      'Confidential: the new project is code-named {v}.',
    ],
    lexical: "What is our team's new project code-named?",
    paraphrased: 'What do we secretly call the thing my group is building at work?',
    distractors: [
      'How do I keep a project on schedule when people keep adding features?',
      'My manager wants a status report every Friday.',
      'Is it normal for a new project to have no clear owner?',
    ],
  },
  {
    id: 'covers-band',
    values: [
      'The Velvet Sprockets',
      'Paper Lanterns',
      'The Midnight Ferns',
      'Copper Kettle',
      'The Late Arrivals',
    ],
    statements: [
      'I play drums in a covers band called {v}, we rehearse on Sundays.',
      'On Sundays I rehearse with my covers band, {v}; I am the drummer.',
    ],
    lexical: "What's the covers band I play drums in called?",
    paraphrased: 'What is the name of my music group?',
    distractors: [
      'How do I soundproof a small room for drum practice?',
      'Our neighbours complained about the noise again.',
      'What songs work well for a wedding playlist?',
    ],
  },
  {
    id: 'mobile-number',
    values: ['07700 900431', '07700 900872', '07700 900215', '07700 900659'],
    statements: [
      'My new mobile number is {v}, the old one stops working next week.',
      'Update your records: my mobile number is now {v}.',
    ],
    lexical: 'What is my new mobile number?',
    paraphrased: 'How can people reach me by phone now?',
    distractors: [
      'Is it worth switching to a SIM-only deal?',
      'My phone battery drains really fast lately.',
      'How do I block spam calls?',
    ],
  },
  {
    id: 'wedding-date',
    values: ['the 14th of September', 'the 6th of June', 'the 22nd of August', 'the 3rd of May'],
    statements: [
      'We set the wedding date: {v}, at a vineyard.',
      'It is official, the wedding is on {v} at a vineyard.',
    ],
    lexical: 'What wedding date did we set at the vineyard?',
    paraphrased: 'When are we getting married?',
    distractors: [
      'How many guests is too many for a small wedding?',
      'My cousin spent a fortune on flowers for her wedding.',
      'Is a vineyard a good place for a party in the rain?',
    ],
  },
  {
    id: 'rent',
    values: ['1,280 pounds', '1,735 pounds', '990 pounds', '1,560 pounds'],
    statements: [
      'Our landlord put the rent up to {v} a month starting next quarter.',
      'Rent is going up to {v} a month from next quarter, says the landlord.',
    ],
    lexical: 'How much did our landlord put the rent up to?',
    paraphrased: 'How much does our flat cost us now?',
    distractors: [
      'Can a landlord raise the rent in the middle of a contract?',
      'My friend pays half what we do for a bigger place.',
      'How do I ask for repairs without annoying the landlord?',
    ],
  },
  {
    id: 'food-dislike',
    values: ['olives', 'coconut', 'aniseed', 'mayonnaise', 'beetroot', 'capers'],
    statements: [
      "I can't stand {v}, I pick them out of everything.",
      'Honestly {v} ruin any dish for me, I always pick them out.',
    ],
    lexical: "What can't I stand and pick out of everything?",
    paraphrased: 'Is there anything I refuse to eat?',
    distractors: [
      'Why do some people hate coriander?',
      'My kids pick the vegetables out of every meal.',
      'What is a good side dish for roast chicken?',
    ],
  },
  {
    id: 'university',
    values: ['Aberdeen', 'Tasmania', 'Otago', 'Galway', 'Dundee', 'Plymouth'],
    statements: [
      'I studied marine biology at the University of {v} before switching careers.',
      'Before I switched careers I did marine biology at the University of {v}.',
    ],
    lexical: 'Where did I study marine biology?',
    paraphrased: 'Which college did I go to?',
    distractors: [
      'Is it too late to switch careers at thirty-five?',
      'My nephew wants to study biology but worries about jobs.',
      'What do marine scientists actually do all day?',
    ],
  },
  {
    id: 'blood-type',
    values: ['AB negative', 'B positive', 'A negative', 'O positive'],
    statements: [
      'For the record, my blood type is {v}.',
      'If it ever matters: my blood type is {v}.',
    ],
    lexical: 'What is my blood type?',
    paraphrased: 'If I needed a transfusion, which group would they give me?',
    distractors: [
      'How often can you donate blood?',
      'My blood pressure was a bit high at the pharmacy.',
      'Is it true that diet should depend on your type?',
    ],
  },
  {
    id: 'medication',
    values: [
      '5 mg of amlodipine',
      '10 mg of lisinopril',
      '25 mg of losartan',
      '2.5 mg of ramipril',
    ],
    check: lastWord,
    statements: [
      'I take {v} every evening for my blood pressure.',
      'Every evening I take {v}, for the blood pressure.',
    ],
    lexical: 'What do I take every evening for my blood pressure?',
    paraphrased: 'Which pills am I on for hypertension?',
    distractors: [
      'Is it bad to take paracetamol with coffee?',
      'My mum forgets her tablets unless they are in a weekly box.',
      'What lowers blood pressure naturally?',
    ],
  },
  {
    id: 'bedroom-paint',
    values: ['sage green', 'terracotta', 'duck-egg blue', 'charcoal grey', 'ochre'],
    statements: [
      'We painted the bedroom {v} over the weekend.',
      'The bedroom is {v} now, we painted it at the weekend.',
    ],
    lexical: 'What colour did we paint the bedroom?',
    paraphrased: 'How does the room where we sleep look after the decorating?',
    distractors: [
      'How many coats of paint does a dark wall need?',
      'My brother painted his kitchen bright yellow and regrets it.',
      'What colour curtains go with white walls?',
    ],
  },
  {
    id: 'work-laptop',
    values: [
      'Dell Latitude 7440',
      'MacBook Air M2',
      'HP EliteBook 840',
      'Lenovo Yoga 7',
      'Framework 13',
    ],
    statements: [
      "My work laptop is a {v}, IT says it's due for replacement in spring.",
      'IT gave me a {v} as my work laptop; replacement due in spring.',
    ],
    lexical: 'What model is my work laptop?',
    paraphrased: 'Which computer does my job give me?',
    distractors: [
      'Why is my laptop fan so loud during video calls?',
      'My colleague spilled coffee on his keyboard.',
      'Is it worth buying an external monitor?',
    ],
  },
  {
    id: 'phobia',
    values: ['wasps', 'deep water', 'thunderstorms', 'clowns', 'escalators', 'moths'],
    statements: [
      "I'm terrified of {v}, ever since childhood.",
      'Ever since childhood I have been terrified of {v}.',
    ],
    lexical: 'What have I been terrified of since childhood?',
    paraphrased: "What's my biggest phobia?",
    distractors: [
      'How do people get over a fear of flying?',
      'My son is scared of the dark.',
      'Is it normal to still be scared of things from childhood?',
    ],
  },
  {
    id: 'friend-town',
    values: ['Ericeira', 'Biarritz', 'Taghazout', 'Hossegor', 'Raglan'],
    statements: [
      'My best friend Dario moved to {v} to open a surf school.',
      'Dario, my best friend, is opening a surf school in {v}; he moved there last month.',
    ],
    lexical: 'Where did my best friend Dario move to open a surf school?',
    paraphrased: 'In which town does my closest mate live now?',
    distractors: [
      'Is surfing hard to learn as an adult?',
      'My friend from school started a bakery and loves it.',
      'How do you stay close to friends who move away?',
    ],
  },
  {
    id: 'roof-quote',
    values: ['8,400 pounds', '12,750 pounds', '6,900 pounds', '9,300 pounds'],
    statements: [
      'The quote for the new roof came to {v}, more than we hoped.',
      'We got the roof quote back: {v}. Ouch.',
    ],
    lexical: 'What did the quote for the new roof come to?',
    paraphrased: 'How much will fixing the top of the house cost us?',
    distractors: [
      'How many quotes should I get before hiring a builder?',
      'Our neighbours had their gutters replaced last year.',
      'Is it normal for a roofer to ask for money up front?',
    ],
  },
  {
    id: 'key-safe',
    values: ['1947', '6082', '3725', '9160', '4538'],
    statements: [
      'The key safe by the back door opens with {v}.',
      'Code for the key safe by the back door: {v}.',
    ],
    lexical: 'What code opens the key safe by the back door?',
    paraphrased: "What's the number for the lockbox outside the house?",
    distractors: [
      'Should I leave a spare key with a neighbour?',
      'My back door sticks when it rains.',
      'Are smart locks safe or easy to hack?',
    ],
  },
  {
    id: 'half-marathon',
    values: ['Valencia', 'Copenhagen', 'Prague', 'Edinburgh', 'Seville'],
    statements: [
      'I signed up for the half marathon in {v} next spring.',
      'Next spring I am running the {v} half marathon, I just signed up.',
    ],
    lexical: 'Where is the half marathon I signed up for?',
    paraphrased: "Which city's race am I training for?",
    distractors: [
      'How many weeks do you need to train for a half marathon?',
      'My knees hurt after long runs.',
      'What should I eat the night before a big race?',
    ],
  },
  {
    id: 'grandma-stew',
    values: ['smoked paprika', 'star anise', 'juniper berries', 'Marmite', 'black treacle'],
    statements: [
      "My grandma's secret ingredient in her stew was {v}.",
      "The secret in my grandma's stew? {v}. She never told anyone else.",
    ],
    lexical: "What was the secret ingredient in my grandma's stew?",
    paraphrased: 'What did Nana add to her cooking that nobody knew about?',
    distractors: [
      'How long should a beef stew simmer?',
      'My grandma also made the best apple pie.',
      'Can you freeze stew with potatoes in it?',
    ],
  },
  {
    id: 'piano-teacher',
    values: ['Castellanos', 'Whitcombe', 'Delacroix', 'Abernathy', 'Szymanski'],
    statements: [
      "My son's piano teacher is Mr. {v}, lessons are on Wednesdays.",
      'Mr. {v} teaches my son piano on Wednesdays.',
    ],
    lexical: "Who is my son's piano teacher?",
    paraphrased: "Who is my kid's music tutor?",
    distractors: [
      'How much should a child practise the piano each day?',
      'My son wants to quit football.',
      'Is a digital piano good enough for a beginner?',
    ],
  },
  {
    id: 'alarm-time',
    values: ['5:10', '5:45', '6:20', '4:50'],
    statements: ["I set my alarm for {v} on weekdays, it's brutal.", 'Weekday alarm: {v}. Brutal.'],
    lexical: 'What time do I set my alarm for on weekdays?',
    paraphrased: 'How early do I get up for work?',
    distractors: [
      'How do I stop hitting snooze every morning?',
      'My partner goes to bed much later than me.',
      'Is it bad to sleep in at weekends?',
    ],
  },
  {
    id: 'brother-in-law-job',
    values: ['sommelier', 'air traffic controller', 'locksmith', 'court stenographer', 'beekeeper'],
    statements: [
      'My brother-in-law Kenji works as a {v} in the city.',
      'Kenji, my brother-in-law, is a {v}; he works in the city.',
    ],
    lexical: 'What does my brother-in-law Kenji work as?',
    paraphrased: "What does my wife's brother do for a living?",
    distractors: [
      'How do I talk to family about money without a fight?',
      'My brother works in sales and travels constantly.',
      'Is a city job worth the commute?',
    ],
  },
  {
    id: 'home-road',
    values: ['Alderney', 'Cobden', 'Wexford', 'Lansdowne', 'Thornbury'],
    statements: [
      'We moved into the house on {v} Road three years ago.',
      'Three years now in the house on {v} Road.',
    ],
    lexical: 'Which road is the house we moved into on?',
    paraphrased: 'What street do I live on?',
    distractors: [
      'How do I find out how old my house is?',
      'My neighbour parks across our drive every night.',
      'Is it worth redoing the front garden before selling?',
    ],
  },
  {
    id: 'football-club',
    values: ['Hibernian', 'Sheffield Wednesday', 'Bristol Rovers', 'Norwich City', 'Dundee United'],
    statements: [
      "I've supported {v} since I was a kid, season ticket holder for ten years.",
      'Season ticket holder for ten years: {v}, my club since I was a kid.',
    ],
    lexical: 'Which club have I supported since I was a kid?',
    paraphrased: 'What football side do I root for?',
    distractors: [
      'Is a season ticket worth it if you miss half the games?',
      'My nephew supports a different team just to annoy me.',
      'Why are match tickets so expensive now?',
    ],
  },
  {
    id: 'saving-for',
    values: ['canal boat', 'campervan', 'loft conversion', 'sailing dinghy'],
    statements: [
      "We're saving for a {v}, we've put aside about a third so far.",
      'About a third of what we need for our {v} is put aside already.',
    ],
    lexical: 'What are we saving for?',
    paraphrased: 'What big purchase is our nest egg for?',
    distractors: [
      'What is a good savings rate these days?',
      'My friend bought a caravan and never uses it.',
      'Should I pay off debt before saving?',
    ],
  },
  {
    id: 'coffee-order',
    values: ['cortado with oat milk', 'cardamom latte', 'iced americano', 'macchiato'],
    check: (value) => value.replace(/ with oat milk$/, ''),
    statements: ['My usual coffee order is a {v}.', 'Whenever I grab a coffee out I get a {v}.'],
    lexical: "What's my usual coffee order?",
    paraphrased: 'How do I like my morning drink from the café?',
    distractors: [
      'Is coffee bad for you if you drink it after noon?',
      'My colleague drinks five cups a day.',
      'What grind should I use for a cafetière?',
    ],
  },
  {
    id: 'anniversary-restaurant',
    values: ['Tbilisi Nights', 'Supra House', 'Khachapuri Corner', 'The Saperavi'],
    statements: [
      'For our anniversary we always go to {v}, the little Georgian place.',
      'Anniversary tradition: dinner at {v}, the little Georgian place.',
    ],
    lexical: 'Where do we always go for our anniversary?',
    paraphrased: 'Which restaurant is our special celebration spot?',
    distractors: [
      'What is a good gift for a tenth anniversary?',
      'My parents still go dancing every Friday.',
      'How do I book a table somewhere that is always full?',
    ],
  },
];

/** How a fact is recognised in text: its check string (the value unless the kind says otherwise). */
export function checkString(kind: FactKind, value: string): string {
  return kind.check ? kind.check(value) : value;
}
