import { sandboxId } from './sandbox-ids.js';

/** The ten `personal_finance` groups, with the live platform's group ids. */
export const PERSONAL_FINANCE_GROUPS = {
  Appearance: 'group_clasr0ysw0010hk4mf2dca4y8',
  Education: 'group_clasr0ysw000zhk4m0cru14rw',
  Food: 'group_clasr0ysw000xhk4mf7mg2j1z',
  Health: 'group_clasr0ysw000yhk4mddaobwu7',
  Household: 'group_clasr0ysw000uhk4m20nvc6m1',
  Housing: 'group_clasr0ysw000thk4mefilhht7',
  Lifestyle: 'group_clasr0ysw0011hk4m6hlk9fq0',
  'Professional Services': 'group_clasr0ysw0012hk4mgru5dgy7',
  Transport: 'group_clasr0ysw000whk4m577xhmf3',
  Utilities: 'group_clasr0ysw000vhk4m46ce9nrt',
} as const;

export type GroupName = keyof typeof PERSONAL_FINANCE_GROUPS;

/**
 * NZFCC categories used by the sandbox's merchants. Five carry the live platform's ids; the rest
 * get stable sandbox ids (the live list is served by an app-scoped endpoint we do not copy).
 */
const CATEGORY_DEFINITIONS: ReadonlyArray<readonly [name: string, group: GroupName, liveId?: string]> = [
  ['Supermarkets and grocery stores', 'Food', 'nzfcc_ckouvvy84001608ml5p6z4d8j'],
  ['Bakeries', 'Food'],
  ['Convenience stores', 'Food'],
  ['Cafes and restaurants', 'Lifestyle', 'nzfcc_ckouvvyw1004408mlhy158i7j'],
  ['Fast food stores', 'Lifestyle', 'nzfcc_ckouvvywi004508mlacrd41wf'],
  ['Bars, pubs, nightclubs', 'Lifestyle'],
  ['Liquor stores', 'Lifestyle'],
  ['Media and entertainment streaming services', 'Lifestyle'],
  ['Cinemas and live events', 'Lifestyle'],
  ['Lotteries and betting', 'Lifestyle'],
  ['Travel and accommodation', 'Lifestyle'],
  ['Fuel stations', 'Transport', 'nzfcc_ckouvvytq003o08mlbcy57jft'],
  ['Parking services', 'Transport'],
  ['Taxi, rideshare, and on-demand transport services', 'Transport'],
  ['Public transport', 'Transport'],
  ['Airlines', 'Transport'],
  ['Electricity services', 'Utilities', 'nzfcc_clahc65qk000008jt7nug6ag9'],
  ['Internet services', 'Utilities'],
  ['Telecommunication services', 'Utilities'],
  ['Water services', 'Utilities'],
  ['Hardware equipment and supplies', 'Household'],
  ['Insurance', 'Household'],
  ['Electronic and appliance stores', 'Household'],
  ['Department stores', 'Household'],
  ['Homeware stores', 'Household'],
  ['Online marketplaces', 'Household'],
  ['Pharmacies', 'Health'],
  ['Doctors and physicians', 'Health'],
  ['Gyms, fitness, aquatic facilities, yoga, pilates', 'Health'],
  ['Health insurance', 'Health'],
  ['Clothing stores', 'Appearance'],
  ['Shoe stores', 'Appearance'],
  ['Haircuts and treatments', 'Appearance'],
  ['Book stores', 'Education'],
  ['Childcare services', 'Education'],
  ['Tertiary education', 'Education'],
  ['Rent for permanent accommodation', 'Housing'],
  ['Local government', 'Housing'],
  ['Tax payments', 'Professional Services'],
  ['Software and business services', 'Professional Services'],
];

export interface SandboxCategory {
  _id: string;
  name: string;
  groups: { personal_finance: { _id: string; name: string } };
}

export function buildCategories(): Map<string, SandboxCategory> {
  const categories = new Map<string, SandboxCategory>();
  for (const [name, group, liveId] of CATEGORY_DEFINITIONS) {
    categories.set(name, {
      _id: liveId ?? sandboxId('nzfcc', name),
      name,
      groups: { personal_finance: { _id: PERSONAL_FINANCE_GROUPS[group], name: group } },
    });
  }
  return categories;
}
