/**
 * Categories and their everyday members, so a question about the category ("what is my job?",
 * "which database?") meets a statement about a member ("I'm a paramedic", "we use Postgres").
 * Same format and rules as CONCEPT_GROUPS: one group per string, plain forms, bump
 * LOCAL_EMBEDDER_VERSION on any change.
 */

/** Category words followed by common members of the category. */
export const CATEGORY_GROUPS: readonly string[] = [
  `job profession occupation career living pilot nurse doctor teacher engineer lawyer accountant
  paramedic firefighter officer chef cook waiter waitress barista cashier electrician plumber
  carpenter builder architect designer developer programmer scientist researcher professor
  lecturer journalist writer editor photographer artist musician actor dentist pharmacist vet
  farmer mechanic cleaner receptionist secretary consultant analyst manager director founder
  entrepreneur librarian translator therapist psychologist surgeon midwife soldier sailor banker
  economist recruiter tailor hairdresser barber baker butcher gardener nanny freelancer`,
  `animal animals pet creature wildlife dog cat horse cow pig sheep goat chicken chickens hen hens
  rooster duck goose rabbit hamster guinea mouse rat fish bird parrot snake lizard tortoise turtle
  frog bee spider fox wolf bear deer lion tiger elephant monkey`,
  `food dish meal cuisine pasta pizza soup stew curry tagine risotto salad sandwich burger steak
  rice noodles sushi taco lasagne omelette pie roast casserole dumplings paella chili`,
  `drink beverage water coffee tea juice milk beer wine whisky vodka gin rum cocktail soda
  smoothie lemonade`,
  `sport sports team club match league fan supporter support football soccer rugby cricket tennis
  golf basketball baseball hockey volleyball boxing skiing surfing climbing cycling swimming`,
  `instrument instruments guitar piano violin cello drums bass flute trumpet saxophone clarinet
  harp ukulele keyboard`,
  `vehicle vehicles transport car van truck lorry bus motorbike motorcycle scooter bicycle bike
  boat ship ferry train tram plane taxi`,
  `commute commuting travel train bus tube metro tram drive cycle ferry`,
  `furniture sofa couch chair table desk bed wardrobe shelf shelves bookcase cupboard dresser lamp
  rug armchair`,
  `floor storey level flat apartment lift elevator stairs upstairs downstairs basement attic`,
  `body arm leg knee ankle foot hand wrist finger shoulder neck hip elbow head eye ear nose mouth
  tooth heart lung stomach skin`,
  `illness disease condition diagnosed diagnosis diabetes asthma cancer flu covid infection
  arthritis migraine coeliac celiac eczema`,
  `medication medicine drug pill tablet prescription antibiotic antibiotics paracetamol ibuprofen
  aspirin amoxicillin insulin metformin statin sertraline fluoxetine citalopram omeprazole inhaler
  antihistamine melatonin vitamin`,
  `database db postgres postgresql mysql sqlite mongodb redis oracle dynamodb sql`,
  `programming language python javascript typescript java rust golang ruby php kotlin swift`,
  `prod deploy deployed deployment release staging`,
  `country countries nationality abroad france french germany german italy italian spain spanish
  portugal portuguese brazil brazilian ireland irish england english britain british scotland
  scottish america american canada canadian mexico mexican china chinese japan japanese india
  indian netherlands dutch belgium poland polish greece greek turkey turkish russia russian
  australia australian nigeria nigerian egypt chile chilean argentina korea korean sweden swedish`,
  `city cities town london paris berlin madrid lisbon rome milan amsterdam rotterdam brussels
  dublin edinburgh glasgow manchester leeds liverpool birmingham bristol york kyoto tokyo seoul
  beijing shanghai delhi mumbai sydney melbourne toronto vancouver chicago boston seattle
  marseille barcelona vienna prague warsaw athens istanbul cairo lagos nairobi`,
  `relative family member mother father sister brother son daughter aunt uncle cousin niece
  nephew grandmother grandfather grandparent wife husband partner`,
  `clothes clothing garment shirt trousers jeans dress skirt jacket coat jumper sweater shoes
  boots trainers sneakers socks hat scarf gloves`,
  `licence license permit driving test exam passed`,
  `charity volunteer volunteering donate donation nonprofit fundraiser`,
  `writer author novelist poet novel book writing`,
  `delivery deliver delivered arrive arriving arrival shipping shipped parcel package courier order
  ordered`,
  `contract permanent temporary renew renewal renewed secure`,
  `productive productivity focus focused efficient concentrate`,
  `credentials password login secret key token vault`,
  `season spring summer autumn fall winter`,
  `holiday holidays vacation break leave`,
  `birth born gave newborn kittens puppies litter`,
];
