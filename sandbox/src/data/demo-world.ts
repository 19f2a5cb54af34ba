import type {
  SandboxAccount,
  SandboxConnection,
  SandboxParty,
  SandboxPendingTransaction,
  SandboxTransaction,
} from '../model/core-model.js';
import type { SandboxUser } from '../sandbox-state.js';
import { MERCHANTS, type MerchantDefinition } from './merchants.js';
import { pick, seededRandom } from './random.js';
import { sandboxId } from './sandbox-ids.js';

export interface DemoWorld {
  users: SandboxUser[];
  accounts: SandboxAccount[];
  transactions: SandboxTransaction[];
  pending: SandboxPendingTransaction[];
  parties: SandboxParty[];
}

const DAY = 86_400_000;
const HISTORY_DAYS = 90;
const ALL_ATTRIBUTES = ['TRANSACTIONS', 'PAYMENT_FROM', 'PAYMENT_TO', 'TRANSFER_FROM', 'TRANSFER_TO'];

/** Spending range per category, so amounts look like real statements. */
const AMOUNT_RANGES: Record<string, [number, number]> = {
  'Supermarkets and grocery stores': [18, 260],
  'Fast food stores': [8, 45],
  'Cafes and restaurants': [5, 60],
  'Fuel stations': [40, 130],
  'Electricity services': [90, 260],
  'Telecommunication services': [30, 120],
  'Internet services': [70, 110],
  'Media and entertainment streaming services': [10, 30],
  Insurance: [40, 180],
  Airlines: [120, 650],
  'Rent for permanent accommodation': [550, 750],
};

type AccountSpec = Omit<SandboxAccount, '_id' | '_authorisation' | 'connection' | 'refreshed' | 'sandboxUserId'> & {
  key: string;
  bank: string;
};

interface UserSpec {
  key: string;
  user: Omit<SandboxUser, '_id'>;
  parties: Record<string, string>;
  accounts: AccountSpec[];
  /** Statement lines per day across the user's spending accounts. */
  spendPerDay: number;
  salary: { description: string; amount: number };
}

const USERS: UserSpec[] = [
  {
    key: 'aroha',
    user: { email: 'aroha.demo@example.co.nz', preferred_name: 'Aroha Ngata' },
    parties: { ANZ: 'Ms Aroha Mere Ngata', Kiwibank: 'Aroha Ngata', ASB: 'AROHA M NGATA' },
    spendPerDay: 4.3,
    salary: { description: 'SALARY TE WHARE CONSULTING LTD', amount: 3_284.5 },
    accounts: [
      {
        key: 'everyday',
        bank: 'ANZ',
        name: 'Everyday',
        status: 'ACTIVE',
        formatted_account: '01-0123-0456789-00',
        type: 'CHECKING',
        attributes: ALL_ATTRIBUTES,
        balance: { currency: 'NZD', current: 2_345.67, available: 2_845.67, overdrawn: false },
        meta: { holder: 'MS A M NGATA' },
        sandboxShared: true,
      },
      {
        key: 'saver',
        bank: 'ANZ',
        name: 'Online Saver',
        status: 'ACTIVE',
        formatted_account: '01-0123-0456789-30',
        type: 'SAVINGS',
        attributes: ['TRANSACTIONS', 'TRANSFER_FROM', 'TRANSFER_TO'],
        balance: { currency: 'NZD', current: 12_480.12, available: 12_480.12 },
        meta: { holder: 'MS A M NGATA' },
        sandboxShared: true,
      },
      {
        key: 'visa',
        bank: 'ANZ',
        name: 'Visa Platinum',
        status: 'ACTIVE',
        formatted_account: '4835-****-****-1234',
        type: 'CREDITCARD',
        attributes: ['TRANSACTIONS'],
        balance: { currency: 'NZD', current: -842.1, available: 7_157.9, limit: 8_000 },
        meta: { holder: 'MS A M NGATA' },
        sandboxShared: true,
      },
      {
        key: 'joint',
        bank: 'Kiwibank',
        name: 'Joint Bills',
        status: 'ACTIVE',
        formatted_account: '38-9012-0345678-01',
        type: 'CHECKING',
        attributes: ALL_ATTRIBUTES,
        balance: { currency: 'NZD', current: 1_120.4, available: 1_120.4 },
        meta: { holder: 'A M NGATA & J R WILSON', has_unlisted_holders: false },
        sandboxShared: true,
      },
      {
        key: 'kiwisaver',
        bank: 'Kiwibank',
        name: 'KiwiSaver Growth Fund',
        status: 'ACTIVE',
        formatted_account: 'KS-554-210-987',
        type: 'KIWISAVER',
        attributes: [],
        balance: { currency: 'NZD', current: 48_210.33 },
        meta: { holder: 'AROHA MERE NGATA' },
        sandboxShared: true,
      },
      {
        key: 'asb-savings',
        bank: 'ASB',
        name: 'Savings Plus',
        status: 'INACTIVE',
        formatted_account: '12-3040-0567890-51',
        type: 'SAVINGS',
        attributes: ['TRANSACTIONS'],
        balance: { currency: 'NZD', current: 3_050 },
        meta: { holder: 'MS AROHA NGATA' },
        sandboxShared: true,
      },
      {
        key: 'asb-unshared',
        bank: 'ASB',
        name: 'Streamline',
        status: 'ACTIVE',
        formatted_account: '12-3040-0567890-00',
        type: 'CHECKING',
        attributes: ALL_ATTRIBUTES,
        balance: { currency: 'NZD', current: 410 },
        meta: { holder: 'MS A NGATA' },
        sandboxShared: false,
      },
    ],
  },
  {
    key: 'james',
    user: {
      email: 'james.demo@example.co.nz',
      preferred_name: 'James Wilson',
      sandboxRefreshForbidden: 'Manual data refresh is not enabled for this user',
    },
    parties: { Westpac: 'Mr James Robert Wilson', BNZ: 'JAMES WILSON' },
    spendPerDay: 1.6,
    salary: { description: 'SALARY KORU LOGISTICS', amount: 2_610 },
    accounts: [
      {
        key: 'choice',
        bank: 'Westpac',
        name: 'Choice Everyday',
        status: 'ACTIVE',
        formatted_account: '03-0502-0123456-00',
        type: 'CHECKING',
        attributes: ALL_ATTRIBUTES,
        balance: { currency: 'NZD', current: 987.65, available: 987.65 },
        meta: { holder: 'MR J R WILSON' },
        sandboxShared: true,
      },
      {
        key: 'rapid-save',
        bank: 'BNZ',
        name: 'Rapid Save',
        status: 'ACTIVE',
        formatted_account: '02-0100-0765432-02',
        type: 'SAVINGS',
        attributes: ['TRANSACTIONS', 'TRANSFER_FROM', 'TRANSFER_TO'],
        balance: { currency: 'NZD', current: 5_400 },
        meta: { holder: 'MR JAMES ROBERT WILSON' },
        sandboxShared: true,
      },
    ],
  },
];

const SPENDING = MERCHANTS.filter(
  (merchant) =>
    !['Rent for permanent accommodation', 'Tax payments', 'Local government', 'Tertiary education'].includes(
      merchant.category,
    ),
);

function amountFor(merchant: MerchantDefinition, random: () => number): number {
  const [low, high] = AMOUNT_RANGES[merchant.category] ?? [6, 150];
  return Math.round((low + random() * (high - low)) * 100) / 100;
}

function typeFor(merchant: MerchantDefinition): string {
  if (/electricity|telecommunication|internet|insurance|water/i.test(merchant.category)) return 'DIRECT DEBIT';
  if (merchant.global) return 'CREDIT CARD';
  return 'EFTPOS';
}

/** Builds the seeded demo world relative to `now`, so its 90 days always end today. */
export function buildDemoWorld(now: number, connections: SandboxConnection[]): DemoWorld {
  const world: DemoWorld = { users: [], accounts: [], transactions: [], pending: [], parties: [] };
  const connectionByName = new Map(connections.map((connection) => [connection.name, connection]));
  USERS.forEach((spec, userIndex) => new DemoUser(world, spec, userIndex, now, connectionByName).build());
  world.transactions.sort(compareTransactions);
  return world;
}

const iso = (time: number) => new Date(time).toISOString();

/** One demo user's part of the world: their parties, accounts, 90 days of history and pending rows. */
class DemoUser {
  private readonly random: () => number;
  private readonly userId: string;
  private accounts: SandboxAccount[] = [];
  private sequence = 0;

  constructor(
    private readonly world: DemoWorld,
    private readonly spec: UserSpec,
    userIndex: number,
    private readonly now: number,
    private readonly connectionByName: Map<string, SandboxConnection>,
  ) {
    this.random = seededRandom(1_000 + userIndex);
    this.userId = sandboxId('user', spec.key);
  }

  build(): void {
    const { world, spec, userId } = this;
    world.users.push({ _id: userId, ...spec.user });
    for (const [bank, value] of Object.entries(spec.parties))
      world.parties.push({ userId, connectionId: this.connectionByName.get(bank)!._id, value });
    this.accounts = spec.accounts.map(({ key, bank, ...account }) => this.addAccount(key, bank, account));
    for (let day = HISTORY_DAYS; day >= 1; day -= 1) this.addDay(day);
    for (const account of this.spendAccounts().filter((a) => a.status === 'ACTIVE')) this.addPending(account);
  }

  private addAccount(key: string, bank: string, account: Omit<AccountSpec, 'key' | 'bank'>): SandboxAccount {
    const { spec, now } = this;
    const created: SandboxAccount = {
      ...account,
      _id: sandboxId('acc', `${spec.key}:${key}`),
      _authorisation: sandboxId('authorisation', `${spec.key}:${bank}`),
      connection: this.connectionByName.get(bank)!,
      refreshed: { balance: iso(now - 3_600_000), transactions: iso(now - 3_600_000), meta: iso(now - DAY) },
      sandboxUserId: this.userId,
    };
    this.world.accounts.push(created);
    return created;
  }

  private spendAccounts(): SandboxAccount[] {
    return this.accounts.filter((account) => account.type === 'CHECKING' || account.type === 'CREDITCARD');
  }

  private byKey(key: string): SandboxAccount | undefined {
    const index = this.spec.accounts.findIndex((account) => account.key === key);
    return index < 0 ? undefined : this.accounts[index];
  }

  /** One day of the history `day` days ago: card spending, and salary, interest, savings and rent on their days. */
  private addDay(day: number): void {
    const { random, spec } = this;
    const primary = this.accounts[0]!;
    const spendAccounts = this.spendAccounts();
    const dayStart = Math.floor((this.now - day * DAY) / DAY) * DAY;
    const count = Math.floor(spec.spendPerDay + random());
    for (let i = 0; i < count; i += 1) {
      const merchant = pick(random, SPENDING);
      const account = merchant.global
        ? (spendAccounts.find((a) => a.type === 'CREDITCARD') ?? primary)
        : pick(random, spendAccounts);
      const amount = -amountFor(merchant, random);
      const meta = account.type === 'CREDITCARD' ? { card_suffix: '1234' } : { card_suffix: '4321' };
      const at = dayStart + Math.floor((7 + random() * 14) * 3_600_000);
      this.add(account, at, merchant.sample, amount, typeFor(merchant), meta);
    }
    if (day % 14 === 0)
      this.add(primary, dayStart + 2 * 3_600_000, spec.salary.description, spec.salary.amount, 'DIRECT CREDIT', {
        particulars: 'SALARY',
        reference: `PAY${day}`,
      });
    if (day % 30 === 0) {
      for (const savings of this.accounts.filter((a) => a.type === 'SAVINGS' && a.status === 'ACTIVE'))
        this.add(savings, dayStart + 3_600_000, 'INTEREST CREDIT', Math.round(random() * 4_000) / 100, 'INTEREST');
      const kiwisaver = this.byKey('kiwisaver');
      if (kiwisaver) this.add(kiwisaver, dayStart + 3_600_000, 'KIWISAVER CONTRIBUTION', 262.5, 'DIRECT CREDIT');
    }
    const joint = day % 7 === 3 ? this.byKey('joint') : undefined;
    if (joint)
      this.add(joint, dayStart + 9 * 3_600_000, 'BARFOOT & THOMPSON RENT', -650, 'PAYMENT', {
        reference: 'FLAT 2B',
        other_account: '12-3011-0044556-00',
      });
  }

  private add(
    account: SandboxAccount,
    date: number,
    description: string,
    amount: number,
    type: string,
    meta: SandboxTransaction['meta'] = {},
  ): void {
    this.sequence += 1;
    const { spec, now } = this;
    this.world.transactions.push({
      _id: sandboxId('trans', `${spec.key}:${this.sequence}`),
      hash: sandboxId('hash', `${spec.key}:${this.sequence}`),
      _account: account._id,
      _connection: account.connection._id,
      _user: this.userId,
      created_at: iso(Math.min(now, date + 3_600_000)),
      updated_at: iso(Math.min(now, date + 3_600_000)),
      date: iso(date),
      description,
      amount,
      type,
      meta,
    });
  }

  /** Three card transactions not yet settled, from the last two days. */
  private addPending(account: SandboxAccount): void {
    for (let i = 0; i < 3; i += 1) {
      const merchant = pick(this.random, SPENDING);
      const date = this.now - Math.floor(this.random() * 2 * DAY);
      this.world.pending.push({
        _account: account._id,
        _connection: account.connection._id,
        _user: this.userId,
        updated_at: iso(date),
        date: iso(date),
        description: merchant.sample,
        amount: -amountFor(merchant, this.random),
        type: typeFor(merchant),
        meta: {},
      });
    }
  }
}

/** Newest first, then by id: the stable order the transaction cursor walks. */
export function compareTransactions(a: { date: string; _id: string }, b: { date: string; _id: string }): number {
  return a.date === b.date ? (a._id < b._id ? -1 : a._id > b._id ? 1 : 0) : a.date < b.date ? 1 : -1;
}

/**
 * Load-test users (`load_0` … ), each with one everyday account and no history: enough to sign in,
 * subscribe and receive account events, for benchmarks that need many distinct users.
 */
export function addLoadTestUsers(world: DemoWorld, count: number, connections: SandboxConnection[], now: number): void {
  const connection = connections[0]!;
  const refreshed = new Date(now).toISOString();
  for (let index = 0; index < count; index += 1) {
    const userId = sandboxId('user', `load_${index}`);
    world.users.push({ _id: userId, email: `load.${index}@example.co.nz`, preferred_name: `Load ${index}` });
    world.accounts.push({
      _id: sandboxId('acc', `load_${index}:everyday`),
      _authorisation: sandboxId('authorisation', `load_${index}`),
      connection,
      name: 'Everyday',
      status: 'ACTIVE',
      formatted_account: `01-0123-${String(1_000_000 + index).slice(-7)}-00`,
      type: 'CHECKING',
      attributes: ALL_ATTRIBUTES,
      balance: { currency: 'NZD', current: 100, available: 100 },
      meta: { holder: `LOAD ${index}` },
      refreshed: { balance: refreshed, transactions: refreshed, meta: refreshed },
      sandboxUserId: userId,
      sandboxShared: true,
    });
  }
}
