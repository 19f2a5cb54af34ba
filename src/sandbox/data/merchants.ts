/**
 * New Zealand merchants known to the sandbox's enrichment search. `patterns` are the words a bank
 * statement line starts with or contains (matched case-insensitively, punctuation ignored);
 * `sample` is a realistic statement line, used by the seeded transactions and the tests.
 * `global` merchants also match overseas descriptions, the platform's "limited support".
 */
export interface MerchantDefinition {
  slug: string;
  name: string;
  category: string;
  website?: string;
  patterns: string[];
  sample: string;
  global?: boolean;
  /** True when the platform would have no logo and returns its placeholder image. */
  noLogo?: boolean;
}

const m = (
  slug: string,
  name: string,
  category: string,
  website: string | undefined,
  patterns: string[],
  sample: string,
  extra: Partial<Pick<MerchantDefinition, 'global' | 'noLogo'>> = {},
): MerchantDefinition => ({ slug, name, category, website, patterns, sample, ...extra });

const GROCERY = 'Supermarkets and grocery stores';
const FAST_FOOD = 'Fast food stores';
const CAFE = 'Cafes and restaurants';

export const MERCHANTS: readonly MerchantDefinition[] = [
  // Food
  m('woolworths', 'Woolworths', GROCERY, 'https://www.woolworths.co.nz', ['WOOLWORTHS', 'COUNTDOWN'], 'WOOLWORTHS NZ/1234 PONSONBY AUCKLAND'),
  m('new-world', 'New World', GROCERY, 'https://www.newworld.co.nz', ['NEW WORLD', 'NW '], 'NEW WORLD THORNDON WELLINGTON'),
  m('paknsave', "PAK'nSAVE", GROCERY, 'https://www.paknsave.co.nz', ['PAK N SAVE', 'PAKNSAVE', 'PAKN SAVE'], "PAK'NSAVE WAIRAU ROAD AUCKLAND"),
  m('freshchoice', 'FreshChoice', GROCERY, 'https://www.freshchoice.co.nz', ['FRESHCHOICE', 'FRESH CHOICE'], 'FRESHCHOICE MERIVALE CHRISTCHURCH'),
  m('supervalue', 'SuperValue', GROCERY, 'https://www.supervalue.co.nz', ['SUPERVALUE', 'SUPER VALUE'], 'SUPERVALUE PLIMMERTON'),
  m('four-square', 'Four Square', GROCERY, 'https://www.foursquare.co.nz', ['FOUR SQUARE', '4 SQUARE'], 'FOUR SQUARE RAGLAN'),
  m('farro', 'Farro', GROCERY, 'https://www.farro.co.nz', ['FARRO'], 'FARRO FRESH GREY LYNN AUCKLAND'),
  m('moore-wilsons', "Moore Wilson's", GROCERY, 'https://www.moorewilsons.co.nz', ['MOORE WILSON'], 'MOORE WILSONS TORY ST WELLINGTON'),
  m('bakers-delight', 'Bakers Delight', 'Bakeries', 'https://www.bakersdelight.co.nz', ['BAKERS DELIGHT'], 'BAKERS DELIGHT RICCARTON'),
  m('night-n-day', "Night 'n Day", 'Convenience stores', 'https://www.nightnday.co.nz', ['NIGHT N DAY', 'NIGHTNDAY'], "NIGHT 'N DAY GEORGE ST DUNEDIN"),
  // Lifestyle
  m('mcdonalds', "McDonald's", FAST_FOOD, 'https://mcdonalds.co.nz', ['MCDONALDS', 'MCDONALD S', 'MC DONALDS'], "MCDONALD'S QUEEN STREET AUCKLAND"),
  m('kfc', 'KFC', FAST_FOOD, 'https://www.kfc.co.nz', ['KFC'], 'KFC MANUKAU'),
  m('burger-king', 'Burger King', FAST_FOOD, 'https://www.burgerking.co.nz', ['BURGER KING'], 'BURGER KING HAMILTON'),
  m('subway', 'Subway', FAST_FOOD, 'https://www.subway.com/en-NZ', ['SUBWAY'], 'SUBWAY LAMBTON QUAY WELLINGTON', { global: true }),
  m('dominos', "Domino's", FAST_FOOD, 'https://www.dominos.co.nz', ['DOMINOS', 'DOMINO S'], "DOMINO'S PIZZA TAURANGA"),
  m('pizza-hut', 'Pizza Hut', FAST_FOOD, 'https://www.pizzahut.co.nz', ['PIZZA HUT'], 'PIZZA HUT PAPATOETOE'),
  m('hell-pizza', 'Hell Pizza', FAST_FOOD, 'https://hellpizza.com', ['HELL PIZZA', 'HELL '], 'HELL PIZZA CUBA ST WELLINGTON'),
  m('wendys', "Wendy's", FAST_FOOD, 'https://www.wendys.co.nz', ['WENDYS', 'WENDY S'], "WENDY'S ELLERSLIE"),
  m('uber-eats', 'Uber Eats', FAST_FOOD, 'https://www.ubereats.com', ['UBER EATS', 'UBER  EATS', 'UBEREATS'], 'UBER *EATS HELP.UBER.COM AUCKLAND', { global: true }),
  m('starbucks', 'Starbucks', CAFE, 'https://www.starbucks.co.nz', ['STARBUCKS'], 'STARBUCKS VICTORIA PARK AUCKLAND', { global: true }),
  m('columbus-coffee', 'Columbus Coffee', CAFE, 'https://www.columbuscoffee.co.nz', ['COLUMBUS COFFEE', 'COLUMBUS'], 'COLUMBUS COFFEE MITRE 10 MEGA'),
  m('mojo-coffee', 'Mojo Coffee', CAFE, 'https://www.mojo.coffee', ['MOJO'], 'MOJO COFFEE FEATHERSTON ST WLG'),
  m('liquorland', 'Liquorland', 'Liquor stores', 'https://www.liquorland.co.nz', ['LIQUORLAND', 'LIQUOR LAND'], 'LIQUORLAND NEWMARKET'),
  m('super-liquor', 'Super Liquor', 'Liquor stores', 'https://www.superliquor.co.nz', ['SUPER LIQUOR', 'SUPERLIQUOR'], 'SUPER LIQUOR PAPANUI'),
  m('glengarry', 'Glengarry', 'Liquor stores', 'https://www.glengarrywines.co.nz', ['GLENGARRY'], 'GLENGARRY WINES VICTORIA PARK'),
  m('netflix', 'Netflix', 'Media and entertainment streaming services', 'https://www.netflix.com', ['NETFLIX'], 'NETFLIX.COM AUCKLAND', { global: true }),
  m('spotify', 'Spotify', 'Media and entertainment streaming services', 'https://www.spotify.com', ['SPOTIFY'], 'SPOTIFY P1A2B3C4D5 STOCKHOLM', { global: true }),
  m('neon', 'Neon', 'Media and entertainment streaming services', 'https://www.neontv.co.nz', ['NEON'], 'NEON SUBSCRIPTION AUCKLAND'),
  m('sky-tv', 'Sky TV', 'Media and entertainment streaming services', 'https://www.sky.co.nz', ['SKY NETWORK', 'SKY TV', 'SKY DIGITAL'], 'SKY NETWORK TELEVISION DD'),
  m('event-cinemas', 'Event Cinemas', 'Cinemas and live events', 'https://www.eventcinemas.co.nz', ['EVENT CINEMAS', 'EVENT CINEMA'], 'EVENT CINEMAS QUEEN ST'),
  m('hoyts', 'Hoyts', 'Cinemas and live events', 'https://www.hoyts.co.nz', ['HOYTS'], 'HOYTS SYLVIA PARK'),
  m('ticketek', 'Ticketek', 'Cinemas and live events', 'https://premier.ticketek.co.nz', ['TICKETEK'], 'TICKETEK NZ AUCKLAND'),
  m('mylotto', 'Lotto NZ', 'Lotteries and betting', 'https://mylotto.co.nz', ['MYLOTTO', 'LOTTO NZ', 'LOTTO'], 'MYLOTTO AUCKLAND'),
  m('tab', 'TAB NZ', 'Lotteries and betting', 'https://www.tab.co.nz', ['TAB NZ', 'TAB '], 'TAB NZ PETONE'),
  m('airbnb', 'Airbnb', 'Travel and accommodation', 'https://www.airbnb.co.nz', ['AIRBNB'], 'AIRBNB * HMQ4ZK8Y SAN FRANCISCO', { global: true }),
  m('booking-com', 'Booking.com', 'Travel and accommodation', 'https://www.booking.com', ['BOOKING COM', 'BOOKING.COM'], 'BOOKING.COM HOTEL AMSTERDAM', { global: true }),
  // Transport
  m('z-energy', 'Z Energy', 'Fuel stations', 'https://z.co.nz', ['Z ENERGY', 'Z '], 'Z ENERGY KILLARNEY ST HAMILTON'),
  m('bp', 'BP', 'Fuel stations', 'https://www.bp.com/en_nz', ['BP CONNECT', 'BP 2GO', 'BP '], 'BP CONNECT TAKAPUNA'),
  m('mobil', 'Mobil', 'Fuel stations', 'https://www.mobil.co.nz', ['MOBIL'], 'MOBIL ROTORUA'),
  m('gull', 'Gull', 'Fuel stations', 'https://gull.nz', ['GULL'], 'GULL PAPAKURA'),
  m('waitomo', 'Waitomo', 'Fuel stations', 'https://waitomogroup.co.nz', ['WAITOMO'], 'WAITOMO FUEL TE RAPA'),
  m('uber', 'Uber', 'Taxi, rideshare, and on-demand transport services', 'https://www.uber.com', ['UBER'], 'UBER *TRIP HELP.UBER.COM AUCKLAND', { global: true }),
  m('at-hop', 'AT HOP', 'Public transport', 'https://at.govt.nz', ['AT HOP', 'AUCKLAND TRANSPORT'], 'AT HOP TOP UP AUCKLAND'),
  m('metlink', 'Metlink', 'Public transport', 'https://www.metlink.org.nz', ['METLINK', 'SNAPPER'], 'SNAPPER SERVICES WELLINGTON'),
  m('wilson-parking', 'Wilson Parking', 'Parking services', 'https://www.wilsonparking.co.nz', ['WILSON PARKING'], 'WILSON PARKING NZ AUCKLAND'),
  m('air-new-zealand', 'Air New Zealand', 'Airlines', 'https://www.airnewzealand.co.nz', ['AIR NEW ZEALAND', 'AIR NZ', 'AIRNZ'], 'AIR NEW ZEALAND AUCKLAND', { global: true }),
  m('jetstar', 'Jetstar', 'Airlines', 'https://www.jetstar.com/nz', ['JETSTAR'], 'JETSTAR AIRWAYS MELBOURNE', { global: true }),
  m('interislander', 'Interislander', 'Public transport', 'https://www.interislander.co.nz', ['INTERISLANDER'], 'INTERISLANDER WELLINGTON'),
  // Utilities
  m('mercury', 'Mercury', 'Electricity services', 'https://www.mercury.co.nz', ['MERCURY'], 'MERCURY NZ LIMITED DD'),
  m('genesis', 'Genesis Energy', 'Electricity services', 'https://www.genesisenergy.co.nz', ['GENESIS ENERGY', 'GENESIS'], 'GENESIS ENERGY DIRECT DEBIT'),
  m('contact-energy', 'Contact Energy', 'Electricity services', 'https://contact.co.nz', ['CONTACT ENERGY'], 'CONTACT ENERGY LTD'),
  m('meridian', 'Meridian Energy', 'Electricity services', 'https://www.meridianenergy.co.nz', ['MERIDIAN'], 'MERIDIAN ENERGY DD'),
  m('spark', 'Spark', 'Telecommunication services', 'https://www.spark.co.nz', ['SPARK NZ', 'SPARK'], 'SPARK NZ TRADING LTD'),
  m('one-nz', 'One NZ', 'Telecommunication services', 'https://one.nz', ['ONE NZ', 'VODAFONE'], 'ONE NZ DIRECT DEBIT'),
  m('2degrees', '2degrees', 'Telecommunication services', 'https://www.2degrees.nz', ['2DEGREES', '2 DEGREES'], '2DEGREES MOBILE LTD'),
  m('orcon', 'Orcon', 'Internet services', 'https://www.orcon.net.nz', ['ORCON'], 'ORCON BROADBAND DD'),
  m('watercare', 'Watercare', 'Water services', 'https://www.watercare.co.nz', ['WATERCARE'], 'WATERCARE SERVICES LTD'),
  // Household
  m('bunnings', 'Bunnings Warehouse', 'Hardware equipment and supplies', 'https://www.bunnings.co.nz', ['BUNNINGS'], 'BUNNINGS 9482 MT WELLINGTON'),
  m('mitre-10', 'Mitre 10', 'Hardware equipment and supplies', 'https://www.mitre10.co.nz', ['MITRE 10', 'MITRE10'], 'MITRE 10 MEGA LOWER HUTT'),
  m('the-warehouse', 'The Warehouse', 'Department stores', 'https://www.thewarehouse.co.nz', ['THE WAREHOUSE', 'WAREHOUSE'], 'THE WAREHOUSE GLENFIELD'),
  m('noel-leeming', 'Noel Leeming', 'Electronic and appliance stores', 'https://www.noelleeming.co.nz', ['NOEL LEEMING'], 'NOEL LEEMING ALBANY'),
  m('jb-hi-fi', 'JB Hi-Fi', 'Electronic and appliance stores', 'https://www.jbhifi.co.nz', ['JB HI FI', 'JBHIFI', 'JB HIFI'], 'JB HI-FI NEWMARKET'),
  m('harvey-norman', 'Harvey Norman', 'Electronic and appliance stores', 'https://www.harveynorman.co.nz', ['HARVEY NORMAN'], 'HARVEY NORMAN CHRISTCHURCH'),
  m('kmart', 'Kmart', 'Department stores', 'https://www.kmart.co.nz', ['KMART'], 'KMART SYLVIA PARK'),
  m('briscoes', 'Briscoes', 'Homeware stores', 'https://www.briscoes.co.nz', ['BRISCOES'], 'BRISCOES NELSON'),
  m('farmers', 'Farmers', 'Department stores', 'https://www.farmers.co.nz', ['FARMERS'], 'FARMERS ST LUKES'),
  m('mighty-ape', 'Mighty Ape', 'Online marketplaces', 'https://www.mightyape.co.nz', ['MIGHTY APE', 'MIGHTYAPE'], 'MIGHTY APE LIMITED AUCKLAND'),
  m('trade-me', 'Trade Me', 'Online marketplaces', 'https://www.trademe.co.nz', ['TRADE ME', 'TRADEME'], 'TRADE ME LIMITED WELLINGTON'),
  m('amazon', 'Amazon', 'Online marketplaces', 'https://www.amazon.com', ['AMAZON', 'AMZN'], 'AMZN MKTP US*2K4L8 SEATTLE', { global: true }),
  m('aa-insurance', 'AA Insurance', 'Insurance', 'https://www.aainsurance.co.nz', ['AA INSURANCE'], 'AA INSURANCE LTD DD'),
  m('ami', 'AMI Insurance', 'Insurance', 'https://www.ami.co.nz', ['AMI INSURANCE', 'AMI '], 'AMI INSURANCE PREMIUM'),
  m('tower', 'Tower Insurance', 'Insurance', 'https://www.tower.co.nz', ['TOWER INSURANCE', 'TOWER '], 'TOWER INSURANCE LIMITED'),
  // Health
  m('chemist-warehouse', 'Chemist Warehouse', 'Pharmacies', 'https://www.chemistwarehouse.co.nz', ['CHEMIST WAREHOUSE'], 'CHEMIST WAREHOUSE HENDERSON'),
  m('unichem', 'Unichem', 'Pharmacies', 'https://www.unichem.co.nz', ['UNICHEM'], 'UNICHEM KARORI PHARMACY'),
  m('life-pharmacy', 'Life Pharmacy', 'Pharmacies', 'https://www.lifepharmacy.co.nz', ['LIFE PHARMACY'], 'LIFE PHARMACY WESTFIELD'),
  m('les-mills', 'Les Mills', 'Gyms, fitness, aquatic facilities, yoga, pilates', 'https://www.lesmills.co.nz', ['LES MILLS', 'LESMILLS'], 'LES MILLS NZ LTD DD'),
  m('anytime-fitness', 'Anytime Fitness', 'Gyms, fitness, aquatic facilities, yoga, pilates', 'https://www.anytimefitness.co.nz', ['ANYTIME FITNESS'], 'ANYTIME FITNESS PAPANUI'),
  m('southern-cross', 'Southern Cross Health Insurance', 'Health insurance', 'https://www.southerncross.co.nz', ['SOUTHERN CROSS', 'SOUTHERN X'], 'SOUTHERN CROSS HEALTH SOC'),
  m('white-cross', 'White Cross', 'Doctors and physicians', 'https://www.whitecross.co.nz', ['WHITE CROSS'], 'WHITE CROSS GLEN INNES'),
  // Appearance
  m('hallensteins', 'Hallensteins', 'Clothing stores', 'https://www.hallensteins.com', ['HALLENSTEIN'], 'HALLENSTEINS RIVERSIDE'),
  m('glassons', 'Glassons', 'Clothing stores', 'https://www.glassons.com', ['GLASSONS'], 'GLASSONS SYLVIA PARK'),
  m('cotton-on', 'Cotton On', 'Clothing stores', 'https://cottonon.com/NZ', ['COTTON ON'], 'COTTON ON BOTANY'),
  m('kathmandu', 'Kathmandu', 'Clothing stores', 'https://www.kathmandu.co.nz', ['KATHMANDU'], 'KATHMANDU QUEENSTOWN'),
  m('macpac', 'Macpac', 'Clothing stores', 'https://www.macpac.co.nz', ['MACPAC'], 'MACPAC WANAKA'),
  m('number-one-shoes', 'Number One Shoes', 'Shoe stores', 'https://www.numberoneshoes.co.nz', ['NUMBER ONE SHOES', 'NO 1 SHOES'], 'NUMBER ONE SHOES LYNNMALL'),
  m('platypus', 'Platypus Shoes', 'Shoe stores', 'https://www.platypusshoes.co.nz', ['PLATYPUS'], 'PLATYPUS SHOES COMMERCIAL BAY'),
  m('just-cuts', 'Just Cuts', 'Haircuts and treatments', 'https://www.justcuts.co.nz', ['JUST CUTS'], 'JUST CUTS WESTGATE', { noLogo: true }),
  // Education
  m('whitcoulls', 'Whitcoulls', 'Book stores', 'https://www.whitcoulls.co.nz', ['WHITCOULLS'], 'WHITCOULLS QUEEN ST AUCKLAND'),
  m('paper-plus', 'Paper Plus', 'Book stores', 'https://www.paperplus.co.nz', ['PAPER PLUS', 'PAPERPLUS'], 'PAPER PLUS TE AWAMUTU'),
  m('kindercare', 'Kindercare Learning Centres', 'Childcare services', 'https://www.kindercare.co.nz', ['KINDERCARE'], 'KINDERCARE LEARNING CTRS DD'),
  m('university-of-auckland', 'University of Auckland', 'Tertiary education', 'https://www.auckland.ac.nz', ['UNIVERSITY OF AUCKLAND', 'UOA '], 'UNIVERSITY OF AUCKLAND FEES'),
  // Housing
  m('auckland-council', 'Auckland Council', 'Local government', 'https://www.aucklandcouncil.govt.nz', ['AUCKLAND COUNCIL'], 'AUCKLAND COUNCIL RATES'),
  m('wellington-city-council', 'Wellington City Council', 'Local government', 'https://wellington.govt.nz', ['WELLINGTON CITY COUNCIL', 'WCC '], 'WELLINGTON CITY COUNCIL RATES'),
  m('barfoot-thompson', 'Barfoot & Thompson', 'Rent for permanent accommodation', 'https://www.barfoot.co.nz', ['BARFOOT', 'BARFOOT THOMPSON'], 'BARFOOT & THOMPSON RENT', { noLogo: true }),
  // Professional services
  m('inland-revenue', 'Inland Revenue', 'Tax payments', 'https://www.ird.govt.nz', ['INLAND REVENUE', 'IRD '], 'INLAND REVENUE DEPARTMENT TAX'),
  m('xero', 'Xero', 'Software and business services', 'https://www.xero.com/nz', ['XERO'], 'XERO NZ LIMITED WELLINGTON', { global: true }),
  m('apple', 'Apple', 'Media and entertainment streaming services', 'https://www.apple.com/nz', ['APPLE COM BILL', 'APPLE COM', 'APPLE '], 'APPLE.COM/BILL SYDNEY AU', { global: true }),
  m('google', 'Google', 'Software and business services', 'https://www.google.com', ['GOOGLE'], 'GOOGLE *YOUTUBEPREMIUM G.CO/HELPPAY#', { global: true }),
];

/**
 * Words that carry a category on their own when no merchant is recognised: the platform's
 * "category, usually a merchant".
 */
export const CATEGORY_KEYWORDS: ReadonlyArray<readonly [keyword: string, category: string]> = [
  ['PARKING', 'Parking services'],
  ['PHARMACY', 'Pharmacies'],
  ['CAFE', CAFE],
  ['BAKERY', 'Bakeries'],
  ['LIQUOR', 'Liquor stores'],
  ['DAIRY', 'Convenience stores'],
  ['PETROL', 'Fuel stations'],
  ['TAXI', 'Taxi, rideshare, and on-demand transport services'],
  ['RENT', 'Rent for permanent accommodation'],
  ['RATES', 'Local government'],
  ['MEDICAL CENTRE', 'Doctors and physicians'],
  ['BARBER', 'Haircuts and treatments'],
];
