/**
 * What a sandbox identity accepts as a knowledge factor. Passwords: at least 12 characters from at
 * least three of lower case, upper case, digits and symbols, not the e-mail address. PINs: at
 * least 5 digits, not one digit repeated, not a run up or down, not a well-known PIN.
 */
export const PASSWORD_MIN_LENGTH = 12;
export const PIN_MIN_LENGTH = 5;

const COMMON_PINS = new Set([
  '12345',
  '123456',
  '54321',
  '654321',
  '11111',
  '00000',
  '12121',
  '121212',
  '11223',
  '112233',
  '123123',
  '696969',
  '13579',
  '24680',
  '98765',
  '987654',
  '12321',
  '10101',
  '101010',
  '20202',
  '55555',
  '69696',
  '77777',
  '88888',
]);

export function passwordProblem(password: string, email: string): string | undefined {
  if (password.length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`;
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z\d]/].filter((pattern) => pattern.test(password)).length;
  if (classes < 3) return 'must mix at least three of: lower case, upper case, digits, symbols';
  if (password.toLowerCase().includes(email.split('@')[0]!.toLowerCase())) return 'must not contain your e-mail name';
  return undefined;
}

export function pinProblem(pin: string): string | undefined {
  if (!/^\d+$/.test(pin)) return 'must be digits only';
  if (pin.length < PIN_MIN_LENGTH) return `must be at least ${PIN_MIN_LENGTH} digits`;
  if (/^(\d)\1+$/.test(pin)) return 'must not repeat one digit';
  const steps = [...pin].slice(1).map((digit, index) => Number(digit) - Number(pin[index]));
  if (steps.every((step) => step === 1) || steps.every((step) => step === -1)) return 'must not be a run of digits';
  if (COMMON_PINS.has(pin)) return 'is too common';
  return undefined;
}
