/**
 * Everyday chatter for bench/recall.ts: topics a person talks to an assistant about, each a list
 * of user messages with the short answer the assistant gives, built from templates and slot
 * words (`{food}`, `{n}`), plus first-person small talk. Nothing here may contain a planted
 * fact's value: the generator checks every conversation and fails loudly if one does.
 */

/** A subject of conversation: its question/answer templates and the words that fill them. */
export interface FillerTopic {
  id: string;
  slots: Readonly<Record<string, readonly string[]>>;
  /** A user message and the assistant's answer to it; a slot named in both gets the same word. */
  pairs: readonly (readonly [string, string])[];
}

/** Topics of everyday chatter. */
export const FILLER_TOPICS: readonly FillerTopic[] = [
  {
    id: 'cooking',
    slots: {
      food: [
        'chicken thighs',
        'chickpeas',
        'salmon',
        'leftover rice',
        'butternut squash',
        'lentils',
        'mushrooms',
        'tofu',
        'pork chops',
        'spinach',
        'sweet potatoes',
        'halloumi',
      ],
      dish: [
        'curry',
        'stir fry',
        'risotto',
        'soup',
        'traybake',
        'pasta bake',
        'frittata',
        'chilli',
        'salad',
      ],
      n: ['10', '15', '20', '25', '30', '40'],
    },
    pairs: [
      [
        'What can I make for dinner with {food} and some {food}?',
        'A {dish} works well: brown the {food} first, then add stock and simmer for about {n} minutes.',
      ],
      [
        'How long should I roast {food} for?',
        'Around {n} minutes in a hot oven; spread the {food} out so it browns instead of steaming.',
      ],
      [
        'Is it okay to freeze a {dish} for a couple of weeks?',
        'Yes, a {dish} freezes fine; cool it quickly, portion it, and use it within a month.',
      ],
      [
        'My {dish} always comes out bland, what am I doing wrong?',
        'Season at each stage and finish with something acidic like lemon juice; that usually fixes a flat {dish}.',
      ],
      [
        'Can I swap {food} for {food} in a {dish}?',
        'That swap works, though the texture changes a bit; add it later so it keeps its shape.',
      ],
      [
        'Give me a quick {dish} idea that takes under {n} minutes.',
        'Try a {dish} with {food}, garlic and whatever greens you have; it is ready in {n} minutes.',
      ],
      [
        'How do I stop {food} from going soggy?',
        'Dry the {food} well, use a hot pan and do not cover it while it cooks.',
      ],
      [
        'What goes well with {food} as a side?',
        'A simple green salad or some roasted vegetables go well with {food}.',
      ],
    ],
  },
  {
    id: 'baking',
    slots: {
      bake: [
        'banana bread',
        'sourdough',
        'brownies',
        'scones',
        'focaccia',
        'cinnamon rolls',
        'lemon drizzle cake',
        'oat cookies',
      ],
      n: ['20', '25', '35', '45', '50'],
    },
    pairs: [
      [
        'Why did my {bake} sink in the middle?',
        'Usually the oven door was opened too early or there was too much raising agent; give it the full {n} minutes.',
      ],
      [
        'Can I make {bake} without eggs?',
        'You can; mashed banana or yoghurt often stand in for eggs in {bake}.',
      ],
      [
        'How do I know when the {bake} is done?',
        'A skewer in the middle should come out clean, and the top should spring back when pressed.',
      ],
      [
        'My {bake} turned out dry, any idea why?',
        'Dry {bake} is often overbaked; check a few minutes early next time and weigh the flour.',
      ],
      [
        'Is it worth buying a stand mixer just for {bake}?',
        'Only if you bake every week; for the odd {bake} a bowl and a wooden spoon are enough.',
      ],
    ],
  },
  {
    id: 'garden',
    slots: {
      plant: [
        'tomatoes',
        'basil',
        'lavender',
        'lemon tree',
        'roses',
        'courgettes',
        'strawberries',
        'fiddle leaf fig',
        'hydrangeas',
        'mint',
      ],
      place: [
        'the balcony',
        'a shady corner',
        'the windowsill',
        'raised beds',
        'pots by the patio',
      ],
      n: ['2', '3', '4', '6'],
    },
    pairs: [
      [
        'How often should I water the {plant} in summer?',
        'Water deeply every {n} days rather than a little every day, and feel the soil first.',
      ],
      [
        'Will the {plant} survive on {place}?',
        'The {plant} can do well on {place} if it gets at least a few hours of sun.',
      ],
      [
        'The leaves on my {plant} are turning yellow, what does that mean?',
        'Yellow leaves often mean overwatering; let the top of the soil dry out between waterings.',
      ],
      [
        'When is the right time to prune the {plant}?',
        'Prune just after flowering, and cut back to a healthy bud.',
      ],
      [
        'Can I grow {plant} in {place}?',
        'Yes, in a big enough pot with drainage; feed it every {n} weeks in summer.',
      ],
      [
        'Something is eating my {plant}, how do I stop it without chemicals?',
        'Pick slugs off at dusk and put grit or a copper ring around the stems.',
      ],
    ],
  },
  {
    id: 'tech',
    slots: {
      device: [
        'my phone',
        'the printer',
        'my laptop',
        'the smart speaker',
        'my tablet',
        'the TV',
        'my headphones',
      ],
      app: [
        'the banking app',
        'my email',
        'the calendar',
        'the photo backup',
        'the video call app',
        'the password manager',
      ],
      n: ['5', '10', '30'],
    },
    pairs: [
      [
        'Why does {device} keep disconnecting from bluetooth?',
        'Remove the pairing on both sides and pair again; that clears most bluetooth glitches.',
      ],
      [
        '{app} on {device} is really slow, how do I speed it up?',
        'Clear the cache of {app} and restart; if that fails, reinstall it, it takes {n} minutes.',
      ],
      [
        'How do I back up everything on {device} before a reset?',
        'Use the built-in backup to the cloud or a computer, and check it finished before resetting.',
      ],
      [
        'Is it safe to update {device} right away or should I wait?',
        'Updates are usually fine after a few days, once early bugs have been reported.',
      ],
      [
        '{device} says storage is full but I deleted lots of photos, why?',
        'Deleted photos sit in a recently deleted folder for a while; empty it to free the space.',
      ],
      [
        'How do I share {app} between two devices?',
        'Sign in with the same account on both and turn on sync in the settings of {app}.',
      ],
      [
        'What is the difference between restarting and resetting {device}?',
        'A restart turns it off and on; a reset wipes the settings, so back up first.',
      ],
    ],
  },
  {
    id: 'fitness',
    slots: {
      exercise: [
        'squats',
        'push-ups',
        'planks',
        'deadlifts',
        'lunges',
        'pull-ups',
        'burpees',
        'stretches',
      ],
      goal: [
        'get stronger',
        'lose a bit of weight',
        'fix my posture',
        'run faster',
        'sleep better',
      ],
      n: ['3', '4', '5', '10', '12'],
    },
    pairs: [
      [
        'How many {exercise} should I do to {goal}?',
        'Start with {n} sets of a number you can manage with good form and add a few each week.',
      ],
      [
        'Is it bad to do {exercise} every day?',
        'Muscles recover between sessions, so every other day is plenty for {exercise}.',
      ],
      [
        'My lower back aches after {exercise}, am I doing them wrong?',
        'Back ache usually means your form is slipping; slow down and keep your core braced.',
      ],
      [
        'What is a simple routine at home to {goal}?',
        'Three short sessions a week of {exercise}, some walking and enough sleep is a good start.',
      ],
      [
        'Should I stretch before or after {exercise}?',
        'Warm up with movement before, and keep the longer stretches for afterwards.',
      ],
      [
        'How long before I notice results if I want to {goal}?',
        'Most people notice a change after {n} weeks if they stay consistent.',
      ],
    ],
  },
  {
    id: 'money',
    slots: {
      thing: [
        'a pension',
        'an emergency fund',
        'index funds',
        'a credit card',
        'a fixed-rate mortgage',
        'a budget spreadsheet',
        'a savings account',
      ],
      n: ['3', '6', '10', '15'],
    },
    pairs: [
      [
        'Is {thing} worth it for someone my age?',
        'For most people yes; the earlier you start, the more time does the work.',
      ],
      [
        'How do I start {thing} without getting overwhelmed?',
        'Start small and automatic; a standing order on payday removes the temptation.',
      ],
      [
        'What is the catch with {thing}?',
        'The main catch is fees; compare them, because small percentages add up over years.',
      ],
      [
        'How much should go into {thing} each month?',
        'A common rule of thumb is about {n} percent of your income, more when you can.',
      ],
      [
        'Can you explain {thing} like I am five?',
        'Think of it as a jar you put a little money in every month for later.',
      ],
    ],
  },
  {
    id: 'travel',
    slots: {
      trip: [
        'a weekend city break',
        'a long train journey',
        'a camping trip',
        'a ski trip',
        'a road trip',
        'a family holiday',
      ],
      item: [
        'a power bank',
        'a rain jacket',
        'earplugs',
        'a reusable bottle',
        'a travel adapter',
        'comfortable shoes',
      ],
      n: ['2', '3', '5', '7'],
    },
    pairs: [
      [
        'What should I pack for {trip}?',
        'Pack layers, {item} and copies of your documents; you can buy most other things there.',
      ],
      [
        'Is {item} really necessary for {trip}?',
        'Not essential, but {item} takes little space and saves a lot of hassle.',
      ],
      [
        'How do I keep costs down on {trip}?',
        'Travel light and eat where locals eat; transport passes often save a lot too.',
      ],
      [
        'Any tips for {trip} with a toddler?',
        'Plan short travel days, bring snacks and keep naps at the usual times.',
      ],
      [
        'How far ahead should I book {trip}?',
        'About {n} weeks ahead usually gets good prices without locking you in too early.',
      ],
    ],
  },
  {
    id: 'work',
    slots: {
      thing: [
        'my inbox',
        'back-to-back meetings',
        'a difficult colleague',
        'a presentation',
        'my performance review',
        'a new manager',
        'working from home',
      ],
      n: ['15', '25', '30', '45'],
    },
    pairs: [
      [
        'How do I deal with {thing} without burning out?',
        'Block {n} minutes of focus time in your calendar and treat it like a meeting.',
      ],
      [
        'Any tips for {thing} next week?',
        'Write down the three things that matter most and prepare those first.',
      ],
      [
        'I keep procrastinating because of {thing}, what helps?',
        'Start with the smallest possible step; momentum makes the rest easier.',
      ],
      [
        'How do I say no politely when {thing} takes all my time?',
        'Be specific about what you can do instead; people take a clear alternative well.',
      ],
      [
        'What should I prepare for {thing}?',
        'A short list of recent wins and one or two questions of your own.',
      ],
    ],
  },
  {
    id: 'home',
    slots: {
      thing: [
        'a dripping tap',
        'mould in the bathroom',
        'a squeaky door',
        'a blocked sink',
        'draughty windows',
        'a wobbly shelf',
        'a cracked tile',
      ],
      n: ['10', '20', '30'],
    },
    pairs: [
      [
        'How do I fix {thing} myself?',
        'Usually it is a cheap fix with a video guide and basic tools; allow {n} minutes.',
      ],
      [
        'Is {thing} something I should call a professional for?',
        'If it involves gas or wiring, call someone; otherwise it is a fine first project.',
      ],
      [
        'What tools do I need for {thing}?',
        'A screwdriver set, a spirit level and some filler cover most small jobs.',
      ],
      [
        'We have {thing} again, how do I stop it coming back?',
        'Find the cause rather than the symptom; for damp, better ventilation fixes most of it.',
      ],
    ],
  },
  {
    id: 'films',
    slots: {
      genre: [
        'thriller',
        'comedy',
        'documentary',
        'animated film',
        'period drama',
        'sci-fi series',
        'horror film',
      ],
      n: ['90', '100', '120'],
    },
    pairs: [
      [
        'Can you recommend a good {genre} for tonight?',
        'Pick a well reviewed {genre} under {n} minutes on a weeknight; you are more likely to finish it.',
      ],
      [
        'Is it worth starting a long {genre} or just watching a film?',
        'If the week is busy, a film; a long series works better for the weekend.',
      ],
      [
        'What is a {genre} that both kids and adults enjoy?',
        'Animated films usually work for everyone; the jokes land on two levels.',
      ],
      [
        'I fell asleep halfway through a {genre} again, is that a sign?',
        'It might just be the sofa; try watching earlier in the evening.',
      ],
    ],
  },
  {
    id: 'kids',
    slots: {
      thing: [
        'screen time',
        'bedtime',
        'homework',
        'picky eating',
        'tantrums',
        'pocket money',
        'sibling fights',
      ],
      n: ['5', '7', '9', '11'],
    },
    pairs: [
      [
        'How do other parents handle {thing}?',
        'Consistency beats strictness; agree a simple rule and stick to it together.',
      ],
      [
        'What is a fair rule for {thing} at age {n}?',
        'At {n}, a small choice inside a clear rule often ends the battle.',
      ],
      [
        '{thing} has become a daily battle, any advice?',
        'Most children go through phases; stay calm and it usually passes.',
      ],
      [
        'Should I be worried about {thing}?',
        'Probably not; praise the behaviour you want more than you react to the rest.',
      ],
    ],
  },
  {
    id: 'weather',
    slots: {
      thing: ['rain', 'a heatwave', 'strong wind', 'frost', 'fog', 'snow'],
      n: ['2', '3', '4'],
    },
    pairs: [
      [
        'They forecast {thing} this weekend, what can we do indoors?',
        'Museums, a board game afternoon or a cooking project are good options.',
      ],
      [
        'How do I protect the plants from {thing}?',
        'Cover tender plants with fleece and move pots against a wall.',
      ],
      [
        'Is it safe to drive in {thing}?',
        'Drive slowly, double your braking distance and keep your lights on.',
      ],
      [
        'What do I wear for a long walk in {thing}?',
        'Layers you can take off, plus something waterproof.',
      ],
    ],
  },
  {
    id: 'health',
    slots: {
      thing: [
        'a headache',
        'trouble sleeping',
        'a stiff neck',
        'a cold',
        'heartburn',
        'low energy',
        'sore feet',
      ],
      n: ['2', '3', '7', '10'],
    },
    pairs: [
      [
        'I have had {thing} for {n} days, should I worry?',
        'Rest and water help most of the time; see someone if it lasts much longer than {n} days.',
      ],
      [
        'What helps with {thing} without medication?',
        'A regular routine, a short walk and less caffeine are worth trying first.',
      ],
      [
        'Could {thing} be caused by stress?',
        'Stress causes a lot of physical symptoms, so it is quite possible.',
      ],
      [
        'Is {thing} linked to screen time?',
        'It can be; take regular breaks and look at something far away every so often.',
      ],
    ],
  },
  {
    id: 'hobbies',
    slots: {
      hobby: [
        'knitting',
        'chess',
        'photography',
        'pottery',
        'birdwatching',
        'sketching',
        'jigsaw puzzles',
        'woodworking',
      ],
      n: ['10', '20', '30'],
    },
    pairs: [
      [
        'How do I get started with {hobby} on a budget?',
        'Start with the cheapest kit and a free beginner guide; upgrade once you know you like {hobby}.',
      ],
      [
        'Is {hobby} a good hobby for someone who is always busy?',
        'Yes, even {n} minutes a few times a week is enough to make progress.',
      ],
      [
        'What is the first thing to learn in {hobby}?',
        'The basics everyone skips; a short course or video series covers them quickly.',
      ],
      [
        'I got bored of {hobby} quickly last time, how do I stick with it?',
        'Set a tiny project you can finish in a week, or join a local club.',
      ],
    ],
  },
  {
    id: 'shopping',
    slots: {
      thing: [
        'a winter coat',
        'running shoes',
        'a mattress',
        'a vacuum cleaner',
        'a kettle',
        'a desk chair',
        'a rucksack',
      ],
      n: ['50', '100', '150', '200'],
    },
    pairs: [
      [
        'What should I look for when buying {thing}?',
        'Check the returns policy and reviews from long-term owners, not just first impressions.',
      ],
      [
        'Is it worth spending more than {n} on {thing}?',
        'For things you use every day, spending a bit more is usually worth it.',
      ],
      [
        'When do shops usually have sales on {thing}?',
        'End of season sales are usually the best time.',
      ],
      [
        'Should I buy {thing} online or try it in a shop first?',
        'Try it in person if fit matters, then compare prices online.',
      ],
    ],
  },
  {
    id: 'music',
    slots: {
      thing: [
        'a playlist for a dinner party',
        'learning the ukulele',
        'a concert next month',
        'vinyl records',
        'singing lessons',
      ],
      n: ['2', '3', '4'],
    },
    pairs: [
      [
        'Any ideas for {thing}?',
        'Mix a few familiar favourites with something new and keep it relaxed.',
      ],
      [
        'Is {thing} worth it for a complete beginner?',
        'Absolutely; {n} short sessions a week beat one long one.',
      ],
      [
        'How do I get the most out of {thing}?',
        'Go in with a curious ear and low expectations; it is meant to be fun.',
      ],
    ],
  },
];

/** Small talk in the first person: it looks like personal information, yet plants no fact. */
export const SMALL_TALK: readonly string[] = [
  "Long day today, I'm exhausted.",
  'I finally cleared my inbox, feels great.',
  'My coffee went cold again while I was on a call.',
  "I think I'm coming down with something.",
  'We had pizza for dinner, nobody wanted to cook.',
  'The train was late again this morning.',
  "I can't believe it's already the end of the month.",
  'I went for a walk at lunch and it helped a lot.',
  'My neighbour is doing renovations and the drilling never stops.',
  'I stayed up too late reading last night.',
  'We cleaned out the garage at the weekend.',
  'I remembered my umbrella for once and it did not rain.',
  'My phone screen cracked when I dropped it on the stairs.',
  'I always forget to drink enough water at work.',
  'We tried a new café near the station, it was nice.',
  'My favourite mug broke this morning.',
];

/** What the assistant says to small talk and to a planted fact: short and value-free. */
export const ACKNOWLEDGEMENTS: readonly string[] = [
  'Got it, thanks for telling me.',
  'Noted, I will keep that in mind.',
  'Thanks for sharing that.',
  'Sounds like a lot going on; I hope the rest of the day is easier.',
  'Understood.',
  'Good to know, thanks.',
];

/** What the assistant answers to distractor lines, which belong to no topic. */
export const GENERIC_REPLIES: readonly string[] = [
  'It depends on the situation, but starting small and seeing what works is usually best.',
  'Good question; most people find a simple routine helps more than anything fancy.',
  'That is more common than you would think, and there are a few easy things to try.',
  'Short answer: yes, within reason. Keep an eye on it and adjust if needed.',
];

/** What the assistant answers to the late questions (the fake upstream looks nothing up). */
export const QUESTION_REPLIES: readonly string[] = [
  'Let me check what you told me earlier.',
  'I will look back through our conversation for that.',
  'Here is what I have on that.',
];

/** Lead-ins and tails a planted fact may be wrapped in, as people mention things in passing. */
export const FACT_LEAD_INS: readonly string[] = [
  '',
  '',
  'Oh, before I forget: ',
  'Random thing, but ',
  'By the way, ',
  'Unrelated, but ',
];
export const FACT_TAILS: readonly string[] = [
  '',
  '',
  ' Anyway, back to what we were saying.',
  ' Just so you know.',
  ' Can you remember that?',
];
