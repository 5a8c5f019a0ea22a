/**
 * The held-out set of bench/embedder-quality.ts: its scores were not looked at while the local
 * embedder's weights and related-word table were tuned, so its figures are the honest ones.
 */
import type { PlantedFact } from './embedder-dataset';

/** Planted facts and paraphrased questions (held out from tuning). */
export const HELDOUT_FACTS: readonly PlantedFact[] = [
  {
    fact: 'My partner Sam is a nurse at St Mary’s and works night shifts.',
    question: 'What does Sam do for a living?',
  },
  {
    fact: 'I keep the spare key under the blue flowerpot by the back door.',
    question: 'Where is the extra house key hidden?',
  },
  { fact: 'Our anniversary is the 3rd of August.', question: 'What date did we get married?' },
  {
    fact: 'I switched from Android to an iPhone 15 last month.',
    question: 'Which smartphone do I own now?',
  },
  {
    fact: 'My brother Karim teaches maths at a secondary school in Leicester.',
    question: 'What subject does Karim teach?',
  },
  {
    fact: 'I can’t eat gluten, I was diagnosed with coeliac disease.',
    question: 'Are there foods I must avoid?',
  },
  { fact: 'The team standup is every weekday at 9:15.', question: 'When is our daily meeting?' },
  {
    fact: 'I’m saving up for a deposit on a flat, aiming for 30,000 by next summer.',
    question: 'How much money am I trying to put aside?',
  },
  {
    fact: 'My favourite band is Radiohead, I’ve seen them live four times.',
    question: 'Which group do I love listening to?',
  },
  {
    fact: 'My son is terrified of the dark and sleeps with a night light.',
    question: 'Is my boy afraid of anything?',
  },
  { fact: 'I cycle to the office, it takes about 25 minutes.', question: 'How do I get to work?' },
  { fact: 'Our dog Pepper is a six-year-old border collie.', question: 'What breed is my dog?' },
  { fact: 'I broke my wrist skiing in February.', question: 'Did I injure myself recently?' },
  {
    fact: 'The client demo is scheduled for the 22nd at 2pm.',
    question: 'When do we show the product to the customer?',
  },
  { fact: 'I grew up in a small village near Cork in Ireland.', question: 'Where was I raised?' },
  {
    fact: 'My car insurance renews on 1 May and costs 640 a year.',
    question: 'When does my auto insurance expire?',
  },
  {
    fact: 'I’m reading Middlemarch for my book club this month.',
    question: 'What novel am I working through?',
  },
  { fact: 'My manager is called Helen Park.', question: 'Who is my boss?' },
  {
    fact: 'I need to take my cat to the vet on Saturday for her vaccinations.',
    question: 'When is the kitten’s appointment at the animal clinic?',
  },
  { fact: 'I prefer my coffee black with no sugar.', question: 'How do I take my coffee?' },
  { fact: 'We sold our old Volkswagen for 4,200.', question: 'How much did we get for the car?' },
  {
    fact: 'My dad is turning seventy on the 9th of December.',
    question: 'When is my father’s birthday?',
  },
  { fact: 'I work from home on Mondays and Fridays.', question: 'Which days am I remote?' },
  {
    fact: 'The server admin password was rotated and is now kept in 1Password under "prod-db".',
    question: 'Where can I find the database credentials?',
  },
  { fact: 'I’m lactose intolerant, oat milk is fine though.', question: 'Can I have dairy?' },
  {
    fact: 'My niece Amara just started university in Glasgow studying medicine.',
    question: 'What is Amara studying?',
  },
  {
    fact: 'I have a fear of flying, so I take the train whenever I can.',
    question: 'Why do I avoid planes?',
  },
  {
    fact: 'Our kitchen renovation should be finished by the end of April.',
    question: 'When will the kitchen work be done?',
  },
  { fact: 'I wear size 44 in running shoes.', question: 'What is my shoe size?' },
  {
    fact: 'My therapist suggested I keep a gratitude journal.',
    question: 'What did my counsellor recommend?',
  },
  {
    fact: 'The recurring bug in checkout was caused by a race condition in the cart service.',
    question: 'What was the root cause of the checkout problem?',
  },
  {
    fact: 'I speak Portuguese fluently because my mother is Brazilian.',
    question: 'What languages do I know?',
  },
  {
    fact: 'Our wedding venue is a barn in the Cotswolds.',
    question: 'Where are we getting married?',
  },
  {
    fact: 'I quit smoking on New Year’s Day 2021.',
    question: 'When did I stop smoking cigarettes?',
  },
  {
    fact: 'My bank is Monzo and my savings pot is called Rainy Day.',
    question: 'Which bank do I use?',
  },
  {
    fact: 'I usually cook a big pot of lentil soup on Sundays.',
    question: 'What do I make at the weekend?',
  },
  {
    fact: 'My grandfather fought in Korea and loved telling stories about it.',
    question: 'Was my grandpa in a war?',
  },
  { fact: 'I’m 1.82 metres tall and weigh about 78 kilos.', question: 'How tall am I?' },
  {
    fact: 'The kids’ school holidays start on July 19.',
    question: 'When does the summer break begin for the children?',
  },
  {
    fact: 'I started therapy for anxiety in January.',
    question: 'Am I getting help for my stress?',
  },
];

/** Held-out conversations: each turn follows the one before it. */
export const HELDOUT_CONVERSATIONS: readonly (readonly string[])[] = [
  [
    'My sink drains really slowly. What can I try before calling a plumber?',
    'Start by removing and cleaning the pop-up stopper, since hair and soap build up there. Then try a plunger with the overflow hole covered, or a cheap plastic drain snake. Pouring boiling water helps with grease in kitchen sinks, but avoid chemical drain cleaners if you have old pipes.',
    'The stopper was full of hair but it is still slow.',
    'Then the clog is further down, probably in the trap under the sink. Put a bucket under it, unscrew the U-shaped trap by hand, and clean it out. If the trap is clear, use the drain snake in the pipe going into the wall.',
  ],
  [
    'How do I ask for a raise without sounding entitled?',
    'Frame it around the value you bring: list concrete results from the past year, the responsibilities you took on, and what similar roles pay in the market. Book a dedicated meeting, state a specific number, and then stop talking and listen.',
    'What if my manager says there is no budget this year?',
    'Ask what would need to be true for a raise next cycle and agree on measurable goals and a date to revisit. You can also negotiate other things: a title change, extra holiday, training budget or flexible hours, which often come from a different budget.',
  ],
  [
    'What is the difference between TCP and UDP?',
    'TCP is connection-oriented: it guarantees delivery, ordering and retransmits lost packets, at the cost of extra latency. UDP just sends datagrams with no guarantees, which makes it faster and suits video calls, games and DNS, where a late packet is useless anyway.',
    'So why does HTTP/3 use UDP?',
    'HTTP/3 runs on QUIC, which is built on UDP but adds its own reliability, ordering per stream and encryption. Doing this in user space avoids head-of-line blocking across streams and lets the protocol evolve without waiting for operating system TCP stacks to change.',
  ],
  [
    'My toddler refuses to eat vegetables. Any ideas?',
    'Keep offering them without pressure, small amounts next to foods they already like; it can take ten or more tries. Let them help wash or choose vegetables, serve them in fun shapes, and eat them yourself at the same table.',
    'She only eats pasta at the moment.',
    'That is a very common phase. Blend vegetables into the pasta sauce, like carrots, courgette or red pepper, and serve pasta with a few peas or sweetcorn mixed in. Keep putting a small portion of a visible vegetable on her plate so it stays familiar.',
  ],
  [
    'Should I use Postgres or MongoDB for a new web app?',
    'For most web apps Postgres is the safer default: relational data, transactions, strong consistency, and JSONB columns when you need flexible documents. MongoDB fits when your data really is document shaped and you need easy horizontal scaling.',
    'We expect a lot of JSON data with varying fields.',
    'Postgres handles that well with JSONB columns and GIN indexes, while keeping the parts that are relational in normal tables. Unless you expect to shard across many machines early on, start with Postgres and store the variable parts as JSONB.',
  ],
  [
    'How long should I rest between sets when lifting?',
    'For heavy strength work, rest two to five minutes so you can lift with good form. For muscle growth, one to two minutes works well. For light endurance work, thirty to sixty seconds is enough.',
    'Does resting longer actually build more muscle?',
    'Studies suggest longer rests of around two to three minutes lead to slightly more muscle growth than very short rests, mainly because you can do more total reps with good weight. Total volume over the week matters more than the exact rest time.',
  ],
  [
    'What are some good houseplants for a dark flat?',
    'Snake plants, ZZ plants, pothos and cast iron plants all tolerate low light. Peace lilies also cope with shade and tell you when they need water by drooping.',
    'My pothos leaves are turning yellow.',
    'Yellow pothos leaves usually mean overwatering. Let the top few centimetres of soil dry out before watering, make sure the pot drains, and remove the yellow leaves. In low light the plant uses less water, so water less often in winter.',
  ],
  [
    'Can you explain what inflation actually is?',
    'Inflation is the rate at which prices for goods and services rise over time, so each unit of money buys less. It is usually measured with a consumer price index that tracks the cost of a typical basket of purchases.',
    'Why do central banks raise interest rates to fight it?',
    'Higher interest rates make borrowing more expensive and saving more attractive, so people and businesses spend and invest less. Lower demand eases the pressure on prices, although it can also slow the economy and raise unemployment.',
  ],
];
