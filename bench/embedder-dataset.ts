/**
 * The development set of bench/embedder-quality.ts: planted facts with paraphrased questions,
 * short real-looking conversations and filler turns. The local embedder was tuned on this set;
 * bench/embedder-heldout.ts was written after tuning stopped and gives the unbiased figures.
 */

/** A fact a user states once, and a later question about it in other words. */
export interface PlantedFact {
  fact: string;
  question: string;
}

/** Planted facts and paraphrased questions (development set). */
export const DEV_FACTS: readonly PlantedFact[] = [
  { fact: 'I adopted a puppy named Biscuit last spring.', question: "What's my dog called?" },
  { fact: 'My locker code at the gym is 4812.', question: "What's the code of my locker?" },
  {
    fact: 'My sister Priya lives in Lisbon with her two kids.',
    question: 'Where does Priya live?',
  },
  {
    fact: "I'm allergic to peanuts, so please never suggest recipes with them.",
    question: 'Do I have any food allergies?',
  },
  {
    fact: 'I started a new job at Stripe as a backend engineer in March.',
    question: 'Where do I work now?',
  },
  { fact: "My wife's birthday is on October 14th.", question: 'When was my wife born?' },
  {
    fact: "We're planning a trip to Kyoto in November to see the autumn leaves.",
    question: 'Where am I travelling this fall?',
  },
  { fact: "I drive a 2015 Honda Civic, it's silver.", question: 'What car do I have?' },
  { fact: 'My favourite film is Spirited Away.', question: 'Which movie do I like the most?' },
  {
    fact: 'Our wifi password is bluefalcon77.',
    question: "What's the password for the internet at home?",
  },
  { fact: 'I bought a house in Leeds last year.', question: 'Did I purchase a home recently?' },
  {
    fact: 'My doctor, Dr. Okafor, told me to cut back on coffee.',
    question: 'What did my physician say about caffeine?',
  },
  { fact: 'I run 5 km every morning before work.', question: 'How often do I go jogging?' },
  {
    fact: 'My son Leo is starting kindergarten in September.',
    question: 'When does my kid begin school?',
  },
  {
    fact: 'The quarterly report is due on Friday the 12th.',
    question: 'When is the deadline for the quarterly report?',
  },
  {
    fact: "I'm learning Spanish with Duolingo, about 20 minutes a day.",
    question: 'Which language am I studying?',
  },
  { fact: 'My mother is recovering from knee surgery.', question: "How is my mom's health?" },
  {
    fact: 'We have a cat called Mochi who hates the vacuum cleaner.',
    question: "What is our pet's name?",
  },
  {
    fact: "I'm vegetarian, I haven't eaten meat in six years.",
    question: 'What kind of diet do I follow?',
  },
  {
    fact: 'My flight to Berlin leaves at 7:40 on Tuesday.',
    question: 'What time is my plane to Berlin?',
  },
  { fact: 'The project codename is Nightingale.', question: 'What did we call the project?' },
  {
    fact: 'I play bass guitar in a band called The Loud Owls.',
    question: 'What instrument do I play?',
  },
  { fact: 'My phone number changed to 555-0142.', question: "What's my new mobile number?" },
  { fact: "I'm getting married in June next year.", question: 'When is my wedding?' },
  {
    fact: 'My landlord raised the rent to 1,450 euros a month.',
    question: 'How much do I pay for my apartment?',
  },
  { fact: 'I hate cilantro, it tastes like soap to me.', question: 'Is there any herb I dislike?' },
  {
    fact: 'The meeting with the investors got moved to Thursday afternoon.',
    question: 'When are we meeting the investors now?',
  },
  {
    fact: 'I graduated from the University of Toronto in 2012 with a degree in physics.',
    question: 'Where did I go to college?',
  },
  { fact: 'My blood type is O negative.', question: 'Do you remember my blood group?' },
  { fact: 'I take 50 mg of sertraline every morning.', question: 'What medication am I on?' },
  {
    fact: 'We painted the living room a dark green last weekend.',
    question: 'What colour are the walls in the lounge?',
  },
  { fact: 'My laptop is a ThinkPad X1 Carbon.', question: 'What computer do I use?' },
  {
    fact: "I'm scared of heights, I couldn't even climb the lighthouse.",
    question: 'Do I have any phobias?',
  },
  { fact: 'My best friend Tomás moved to Chile.', question: 'Where did my closest pal relocate?' },
  { fact: 'I earn about 85k a year.', question: "What's my salary?" },
  { fact: 'The garage door opener code is 3391.', question: 'What is the code for the garage?' },
  {
    fact: "I'm training for the Chicago marathon in October.",
    question: 'What race am I preparing for?',
  },
  {
    fact: 'My grandmother taught me to bake sourdough bread.',
    question: 'Who showed me how to make bread?',
  },
  { fact: "My daughter's teacher is Ms. Alvarez.", question: 'Who teaches my girl at school?' },
  {
    fact: 'I usually go to bed around 11pm and wake at 6:30.',
    question: 'What time do I sleep?',
  },
  {
    fact: 'My sister-in-law Rosa is a pilot for a cargo airline.',
    question: "What is Rosa's job?",
  },
  {
    fact: 'We moved to Rotterdam in 2019 because of my husband’s work.',
    question: 'When did we relocate to the Netherlands?',
  },
  {
    fact: 'My bike was stolen from outside the station on Monday.',
    question: 'What happened to my bicycle?',
  },
  {
    fact: 'I drink two litres of water a day, my doctor insisted.',
    question: 'How much do I hydrate daily?',
  },
  {
    fact: 'The password for the staging server is kept in the team vault.',
    question: 'Where do we store the credentials for staging?',
  },
  { fact: 'My favourite dish is my dad’s lamb tagine.', question: 'What food do I love most?' },
  {
    fact: 'I have two children, Maya who is 9 and Jonah who is 6.',
    question: 'How old are my kids?',
  },
  {
    fact: 'I’m not a morning person, I do my best work after 10pm.',
    question: 'When am I most productive?',
  },
  {
    fact: 'My apartment is on the fourth floor and there is no lift.',
    question: 'Which storey do I live on?',
  },
  {
    fact: 'Last winter I went skiing in Val d’Isère with my cousins.',
    question: 'Where did I go on my ski holiday?',
  },
  { fact: 'We are expecting our first baby in early March.', question: 'When is the baby due?' },
  {
    fact: 'I’ve been playing the piano since I was seven.',
    question: 'How long have I played the piano?',
  },
  {
    fact: 'The API rate limit for our plan is 600 requests per minute.',
    question: 'How many calls per minute can we make to the API?',
  },
  { fact: 'My uncle Farid owns a bakery in Marseille.', question: 'What business does Farid run?' },
  {
    fact: 'I’m colour blind, I can’t tell red from green.',
    question: 'Do I have any problems with my eyesight?',
  },
  {
    fact: 'Our new sofa is arriving on the 5th between 8 and 12.',
    question: 'When will the couch be delivered?',
  },
  {
    fact: 'I volunteer at the food bank every other Saturday.',
    question: 'What charity work do I do?',
  },
  {
    fact: 'My contract ends in December and I have not been told if it will be renewed.',
    question: 'Is my job secure?',
  },
  {
    fact: 'The kids are allergic to cats, so we can only have a dog.',
    question: 'Why can’t we get a kitten?',
  },
  { fact: 'I passed my driving test on the third attempt.', question: 'Did I get my licence?' },
  { fact: 'My favourite author is Ursula K. Le Guin.', question: 'Which writer do I like best?' },
  {
    fact: 'We use Postgres 15 in production and SQLite for local tests.',
    question: 'What database do we run in prod?',
  },
  {
    fact: 'My grandmother turns 90 next week and we are throwing a big party.',
    question: 'Are we celebrating anything soon?',
  },
  {
    fact: 'I have a dentist appointment to fix a cracked molar.',
    question: 'Why am I seeing the dentist?',
  },
  {
    fact: 'I’ve lost 8 kilos since January by walking more.',
    question: 'How much weight have I lost?',
  },
  {
    fact: 'The Wi-Fi in the office drops every afternoon around 3.',
    question: 'When does the internet at work cut out?',
  },
  {
    fact: 'My boyfriend Luca is Italian and we speak English at home.',
    question: 'Where is my partner from?',
  },
  {
    fact: 'I ordered a standing desk, it should come in two weeks.',
    question: 'Did I buy new office furniture?',
  },
  {
    fact: 'My brother is getting divorced and staying with us for a while.',
    question: 'Who is living at our place right now?',
  },
  {
    fact: 'I’m terrible at remembering names, so I write them down after meetings.',
    question: 'Do I have a trick for remembering people I meet?',
  },
  { fact: 'Our cat Juniper had three kittens last night.', question: 'Did my pet give birth?' },
  {
    fact: 'My rent is paid on the first of each month by standing order.',
    question: 'When do I pay the landlord?',
  },
  { fact: 'I stopped drinking alcohol two years ago.', question: 'Do I drink beer or wine?' },
  { fact: 'The football club I support is Celtic.', question: 'Which team am I a fan of?' },
  { fact: 'I work as a paramedic on an ambulance crew.', question: 'What is my profession?' },
  {
    fact: 'The plumber is coming on Wednesday to fix the boiler.',
    question: 'When is the heating being repaired?',
  },
  {
    fact: 'My daughter wants a bicycle for her birthday.',
    question: 'What present should I get my girl?',
  },
  {
    fact: 'I usually take the 8:12 train to Manchester.',
    question: 'What time does my commute leave?',
  },
  { fact: 'I’m writing a novel about a lighthouse keeper.', question: 'What is my book about?' },
  {
    fact: 'We keep chickens in the back garden, five hens.',
    question: 'Do we have any animals in the yard?',
  },
];

/** Short conversations: each turn follows the one before it (user, assistant, user, assistant). */
export const DEV_CONVERSATIONS: readonly (readonly string[])[] = [
  [
    'How do I keep my sourdough starter alive while I am on holiday for two weeks?',
    'Feed it, let it rise for an hour, then put it in the fridge in a closed jar. A starter can rest in the fridge for two to three weeks. When you are back, discard most of it and feed it twice a day for a couple of days until it doubles reliably again.',
    'What if it smells like nail polish remover when I get back?',
    'That acetone smell means the starter is hungry, not dead. Discard all but a spoonful, feed it with equal weights of flour and water, and keep it somewhere warm. After two or three feedings the smell should turn sour and pleasant again.',
  ],
  [
    'My React component re-renders every time the parent updates, even though its props are the same. Why?',
    'By default a child re-renders whenever its parent renders. Wrap the child in React.memo so it skips rendering when its props are shallowly equal, and make sure you are not passing new object or function props on every render; use useMemo and useCallback for those.',
    'I wrapped it in memo but it still re-renders. I pass an onClick handler defined inline.',
    'An inline arrow function is a new function on every render, so the memo comparison fails. Define the handler with useCallback and list its dependencies; then the prop keeps the same identity and the memoized child stops re-rendering.',
  ],
  [
    'What should I pack for a week of hiking in the Scottish Highlands in May?',
    'Pack for rain and cold even in May: a waterproof jacket and trousers, warm layers such as a fleece and a thin down jacket, broken-in waterproof boots, wool socks, a hat and gloves, midge repellent, a map and compass, and a head torch.',
    'Are midges really that bad in May?',
    'Midges usually get bad from late May through August, especially on still, damp evenings near water. Early May is often fine, but bring a head net and repellent anyway; a breeze keeps them away, so camp on exposed ground when you can.',
  ],
  [
    'Can you explain what a mortgage offset account is?',
    'An offset account is a savings account linked to your mortgage. The balance in it is subtracted from the loan amount before interest is calculated, so with a 300,000 loan and 20,000 in the offset account you only pay interest on 280,000, while your savings stay accessible.',
    'Is that better than just making overpayments on the mortgage?',
    'Overpayments reduce the loan permanently and usually save the same interest, but the money is harder to get back. An offset account saves roughly the same interest while keeping the cash available, though offset mortgages often carry a slightly higher rate, so compare the total cost.',
  ],
  [
    'My tomato plants have yellow leaves at the bottom. What is wrong?',
    'Yellowing lower leaves on tomatoes are usually caused by a lack of nitrogen, overwatering, or early blight. Check whether the leaves have brown spots with rings, which point to blight; if they are just evenly yellow, feed the plants and water at the base less often.',
    'There are brown spots with rings on some of them.',
    'Those ringed spots are early blight, a fungal disease. Remove the affected leaves and bin them rather than composting, water at the soil instead of over the leaves, mulch to stop spores splashing up, and improve air flow by pruning the lower branches.',
  ],
  [
    'How do I write a SQL query that returns the second highest salary from an employees table?',
    'One portable way is SELECT MAX(salary) FROM employees WHERE salary < (SELECT MAX(salary) FROM employees). You can also use a window function: rank the salaries with DENSE_RANK() ordered by salary descending and pick the row where the rank is 2.',
    'What does the dense rank version look like if several people share the top salary?',
    'With DENSE_RANK ties share a rank and no numbers are skipped, so if three employees earn the top salary they all get rank 1 and the next distinct salary gets rank 2. SELECT salary FROM (SELECT salary, DENSE_RANK() OVER (ORDER BY salary DESC) AS r FROM employees) t WHERE r = 2.',
  ],
  [
    'My cat keeps scratching the sofa. How can I stop her?',
    'Give her a better option: a tall, sturdy scratching post covered in sisal placed right next to the sofa, and reward her with treats when she uses it. Make the sofa unattractive with double-sided tape or a throw, and keep her claws trimmed.',
    'She ignores the scratching post completely.',
    'Many cats reject posts that wobble or are too short, so make sure it does not move when she pulls on it. Rub catnip or silvervine on it, play with a wand toy around the post so she digs in her claws, and try a horizontal cardboard scratcher too, since some cats prefer scratching flat surfaces.',
  ],
  [
    'I have a job interview for a product manager role next week. How should I prepare?',
    'Research the company and its product, use it yourself, and form an opinion on what you would improve. Prepare stories about past projects using the situation, action, result format, practise a product design question and a metrics question, and bring a few questions about the team.',
    'What kind of metrics question might they ask me?',
    'A typical one is: engagement with a feature dropped 10 percent last week, how would you investigate? Or: what metrics would you track for a new feature? Start by clarifying the goal, then pick a primary success metric and a few guardrail metrics, and explain the trade-offs.',
  ],
  [
    'Why does my bike chain keep slipping when I pedal hard?',
    'Chain slip under load usually means a worn chain or worn cassette, or gears that are out of adjustment. Measure the chain with a chain checker; if it is stretched past 0.75 percent, replace it, and the cassette may need replacing too if the new chain still skips.',
    'I replaced the chain last week and it still skips on the smaller cogs.',
    'A new chain skipping on worn cogs is the classic sign that the cassette is worn as well, since the old chain wore the teeth to match it. Replace the cassette, and check the rear derailleur indexing with the barrel adjuster while you are at it.',
  ],
  [
    'What is a good beginner routine for strength training three days a week?',
    'A simple full-body routine works well: squats, bench press or push-ups, rows, overhead press and deadlifts or hip hinges, three sets of eight to ten reps each, three non-consecutive days a week. Add a little weight each week while your form stays good.',
    'My lower back hurts after deadlifts. Should I stop doing them?',
    'Pain in the lower back after deadlifts usually comes from rounding the back or using too much weight. Drop the load, film your form, keep a neutral spine and brace your core. Try Romanian deadlifts or kettlebell swings instead for a while, and see a physiotherapist if the pain is sharp or lasts.',
  ],
  [
    'Can you recommend some science fiction novels for someone who loved The Martian?',
    'If you liked the problem solving and humour of The Martian, try Project Hail Mary by the same author, Seveneves by Neal Stephenson, Aurora by Kim Stanley Robinson, and The Long Way to a Small, Angry Planet by Becky Chambers for something warmer.',
    'Is Project Hail Mary similar in tone?',
    'Yes, Project Hail Mary is very close in tone: a lone scientist solving engineering problems with wit and a lot of science. It adds a friendship at its heart and more mystery about how the narrator got into space, and many readers like it even more than The Martian.',
  ],
  [
    'My Python script is very slow reading a 2 GB CSV file with pandas. Any tips?',
    'Read only the columns you need with usecols, give explicit dtypes so pandas does not infer them, and read in chunks with chunksize if memory is tight. Converting the file once to Parquet makes later reads many times faster. Polars or DuckDB can also be much faster for large files.',
    'How do I convert it to Parquet without loading everything into memory?',
    'Stream it in chunks: read the CSV with chunksize, and write each chunk to the same Parquet file with a pyarrow ParquetWriter, opening the writer with the schema of the first chunk. DuckDB can also do it in one statement: COPY (SELECT * FROM read_csv_auto(file)) TO out.parquet.',
  ],
];
