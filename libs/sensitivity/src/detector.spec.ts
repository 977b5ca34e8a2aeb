import { findHighShapes, readsAsHigh, readsAsHighWithin, type HighShape, type HighShapeKind } from './index';
import { passesLuhn } from './luhn';

/**
 * Fake credentials are assembled at run time so this file never holds a literal that secret
 * scanners (ours included, or a forge's push protection) would flag.
 */
const fake = (...parts: string[]): string => parts.join('');
const times = (unit: string, count: number): string => unit.repeat(count);

interface PositiveCase {
  name: string;
  text: string;
  /** The text the reported span must cover; omitted when the whole input is the secret. */
  covers?: string;
}

interface NegativeCase {
  name: string;
  text: string;
}

function shapesOfKind(text: string, kind: HighShapeKind): HighShape[] {
  return findHighShapes(text).filter((shape) => shape.kind === kind);
}

function expectDetected(kind: HighShapeKind, { text, covers }: PositiveCase): void {
  const covered = shapesOfKind(text, kind).map((shape) => text.slice(shape.start, shape.end));
  expect(covered).toContain(covers ?? text);
  expect(readsAsHigh(text)).toBe(true);
}

function expectNotHigh({ text }: NegativeCase): void {
  expect(findHighShapes(text)).toEqual([]);
  expect(readsAsHigh(text)).toBe(false);
}

const OPENAI_PROJECT_KEY = fake('sk-proj-', times('Ab3dEf9h', 20));
const OPENAI_LEGACY_KEY = fake('sk-', times('aB3x', 12));
const ANTHROPIC_KEY = fake('sk-ant-api03-', times('Zx9_Qw-1', 12), 'AA');
const GITHUB_CLASSIC = fake('ghp', '_', times('a1B2', 9));
const GITHUB_OAUTH = fake('gho', '_', times('c3D4', 9));
const GITHUB_FINE_GRAINED = fake('github', '_pat_', times('A1b2', 6), '_', times('c3D4', 15));
const SLACK_BOT = fake('xox', 'b-1234567890-1234567890123-', times('aB3x', 6));
const AWS_ACCESS_KEY_ID = fake('AK', 'IA', times('Z7Q2', 4));
const AWS_SESSION_KEY_ID = fake('AS', 'IA', times('Q2Z7', 4));
const GOOGLE_KEY = fake('AI', 'za', times('Sy9_', 8), 'abc');
const STRIPE_LIVE = fake('sk', '_live_', times('4eC39HqLyj', 3));
const STRIPE_RESTRICTED = fake('rk', '_live_', times('9HqLyj4eC3', 3));
const JWT = fake('eyJhbGciOiJIUzI1NiJ9', '.', 'eyJzdWIiOiIxMjM0NTY3ODkwIn0', '.', times('dBjftJeZ4CVP', 4));
const BEARER_TOKEN = times('a1B2c3D4', 5);
const RSA_BODY = fake(times('MIIEpAIBAAKCAQEA', 4), '\n', times('q2Wz', 16), '\n');
const RSA_BLOCK = fake('-----BEGIN RSA ', 'PRIVATE KEY-----\n', RSA_BODY, '-----END RSA ', 'PRIVATE KEY-----');

const API_KEYS: PositiveCase[] = [
  { name: 'OpenAI project key', text: `key: ${OPENAI_PROJECT_KEY}`, covers: OPENAI_PROJECT_KEY },
  { name: 'OpenAI legacy key', text: `export OPENAI_API_KEY=${OPENAI_LEGACY_KEY}`, covers: OPENAI_LEGACY_KEY },
  { name: 'Anthropic key', text: `here you go ${ANTHROPIC_KEY} thanks`, covers: ANTHROPIC_KEY },
  { name: 'GitHub classic token', text: `token ${GITHUB_CLASSIC}`, covers: GITHUB_CLASSIC },
  { name: 'GitHub OAuth token', text: GITHUB_OAUTH },
  { name: 'GitHub fine-grained token', text: `"${GITHUB_FINE_GRAINED}"`, covers: GITHUB_FINE_GRAINED },
  { name: 'Slack bot token', text: `SLACK=${SLACK_BOT}`, covers: SLACK_BOT },
  { name: 'AWS access key id', text: `aws_access_key_id = ${AWS_ACCESS_KEY_ID}`, covers: AWS_ACCESS_KEY_ID },
  { name: 'AWS session key id', text: `(${AWS_SESSION_KEY_ID})`, covers: AWS_SESSION_KEY_ID },
  { name: 'Google API key', text: `?key=${GOOGLE_KEY}&q=x`, covers: GOOGLE_KEY },
  { name: 'Stripe live secret key', text: STRIPE_LIVE },
  { name: 'Stripe restricted key', text: `stripe ${STRIPE_RESTRICTED}.`, covers: STRIPE_RESTRICTED },
  { name: 'JWT', text: `cookie=${JWT}; Path=/`, covers: JWT },
  { name: 'Bearer token', text: `Authorization: Bearer ${BEARER_TOKEN}`, covers: BEARER_TOKEN },
  { name: 'lower-case bearer', text: `-H "authorization: bearer ${BEARER_TOKEN}"`, covers: BEARER_TOKEN },
  { name: 'Bearer JWT', text: `Authorization: Bearer ${JWT}`, covers: JWT },
  { name: 'GitLab token', text: fake('glpat', '-', times('x1Y2', 5)) },
  { name: 'npm token', text: fake('npm', '_', times('a1B2', 9)) },
];

const NOT_API_KEYS: NegativeCase[] = [
  { name: 'a library name', text: 'we use sk-learn for that' },
  { name: 'sk- inside a word', text: 'task-1234567890abcdefghij' },
  { name: 'sk- on a hyphenated phrase without digits', text: 'sk-this-is-not-a-real-key-value-at-all' },
  { name: 'a truncated GitHub prefix', text: 'ghp_short' },
  { name: "AWS's documentation example key", text: fake('AKIA', 'IOSFODNN7', 'EXAMPLE') },
  { name: 'a short AKIA word', text: 'AKIA1234' },
  { name: 'a Bearer placeholder', text: 'Authorization: Bearer <token>' },
  { name: 'a Bearer variable', text: 'Authorization: Bearer ${TOKEN}' },
  { name: 'a Bearer description', text: 'Authorization: Bearer YOUR_ACCESS_TOKEN_HERE' },
  { name: 'a lone JWT header prefix', text: 'eyJhbGciOi' },
  { name: 'a Slack placeholder', text: 'xoxb-your-token-here' },
  { name: 'a Stripe test-mode key', text: fake('sk', '_test_', times('4eC39HqLyj', 3)) },
];

const PRIVATE_KEYS: PositiveCase[] = [
  { name: 'RSA block', text: `${RSA_BLOCK}\nthanks`, covers: RSA_BLOCK },
  {
    name: 'OpenSSH block cut before its footer',
    text: fake('-----BEGIN OPENSSH ', 'PRIVATE KEY-----\n', times('b3BlbnNzaC1rZXk', 4), '\nthat was cut'),
    covers: fake('-----BEGIN OPENSSH ', 'PRIVATE KEY-----\n', times('b3BlbnNzaC1rZXk', 4)),
  },
  {
    name: 'RSA block cut after two lines, before the prose that follows',
    text: fake('-----BEGIN RSA ', 'PRIVATE KEY-----\n', RSA_BODY, 'sorry, pasted too much'),
    covers: fake('-----BEGIN RSA ', 'PRIVATE KEY-----\n', RSA_BODY.trimEnd()),
  },
  {
    name: 'PKCS#8 block in a JSON string',
    text: fake('{"key": "-----BEGIN ', 'PRIVATE KEY-----\\n', times('MIIEvQIBADANBgkq', 4), '\\n-----END ', 'PRIVATE KEY-----\\n"}'),
    covers: fake('-----BEGIN ', 'PRIVATE KEY-----\\n', times('MIIEvQIBADANBgkq', 4), '\\n-----END ', 'PRIVATE KEY-----'),
  },
  {
    name: 'PGP key block with armour headers',
    text: fake('-----BEGIN PGP ', 'PRIVATE KEY BLOCK-----\nVersion: x\n\n', times('lQOYBF', 10), '\n-----END PGP ', 'PRIVATE KEY BLOCK-----'),
  },
];

const NOT_PRIVATE_KEYS: NegativeCase[] = [
  { name: 'code that mentions the header', text: "if (pem.startsWith('-----BEGIN PRIVATE KEY-----')) {" },
  { name: 'a public key', text: `-----BEGIN PUBLIC KEY-----\n${times('MIIBIjANBgkqhkiG', 4)}\n-----END PUBLIC KEY-----` },
  { name: 'a certificate', text: `-----BEGIN CERTIFICATE-----\n${times('MIIDdzCCAl+gAwIB', 4)}\n-----END CERTIFICATE-----` },
];

const PASSWORD_ASSIGNMENTS: PositiveCase[] = [
  { name: 'env assignment', text: 'password=hunter2', covers: 'hunter2' },
  { name: 'prefixed env var, span keeps trailing punctuation', text: 'DB_PASSWORD=s3cr3t!', covers: 's3cr3t!' },
  { name: 'PGPASSWORD before a command', text: 'PGPASSWORD=abc123 psql -h db', covers: 'abc123' },
  { name: 'JSON', text: '{"user":"bob","password":"hunter2"}', covers: 'hunter2' },
  { name: 'JSON escaped inside JSON', text: '{\\"password\\":\\"hunter2\\"}', covers: 'hunter2' },
  { name: 'YAML', text: 'db:\n  password: hunter2\n  host: x', covers: 'hunter2' },
  { name: 'YAML quoted', text: '  db_password: "x9!"', covers: 'x9!' },
  { name: 'CLI flag with a space', text: 'mysql --password hunter2 -u root', covers: 'hunter2' },
  { name: 'CLI flag with =', text: 'mysql --password=hunter2', covers: 'hunter2' },
  { name: 'api_key', text: 'api_key=abcd1234', covers: 'abcd1234' },
  { name: 'camelCase apiKey', text: "const config = { apiKey: 'abc' };", covers: 'abc' },
  { name: 'client_secret with spaces', text: 'client_secret = "xyz"', covers: 'xyz' },
  { name: 'access_token', text: 'access_token: tok123', covers: 'tok123' },
  { name: 'AUTH_TOKEN', text: 'AUTH_TOKEN=abc', covers: 'abc' },
  { name: 'pwd', text: 'pwd=letmein', covers: 'letmein' },
  { name: 'passwd', text: 'passwd: hunter2', covers: 'hunter2' },
  { name: 'secret', text: 'secret: correct-horse', covers: 'correct-horse' },
  { name: 'apikey in a query string', text: 'https://x.io/v1?apikey=hunter2&q=1', covers: 'hunter2' },
  { name: 'password in a query string', text: 'GET /login?user=bob&password=hunter2 HTTP/1.1', covers: 'hunter2' },
  { name: 'an HTTP header', text: 'X-Api-Key: abcdef123', covers: 'abcdef123' },
  { name: 'Go short assignment', text: 'password := "pa55"', covers: 'pa55' },
  { name: 'PHP array', text: "'password' => 'secret123',", covers: 'secret123' },
  { name: 'ini with spaces', text: '[db]\npassword = hunter2\n', covers: 'hunter2' },
  { name: 'Markdown bold label', text: '**Password:** hunter2', covers: 'hunter2' },
  { name: 'a stated password at the end of a line', text: 'Password: hunter2.', covers: 'hunter2.' },
  { name: 'a weak password that happens to start with "my"', text: 'password: my-dog-rex', covers: 'my-dog-rex' },
  { name: 'Python literal kwarg', text: 'connect(user="u", password="hunter2")', covers: 'hunter2' },
  { name: 'npmrc auth token', text: '//registry.npmjs.org/:_authToken=abc123', covers: 'abc123' },
  { name: 'AWS secret access key', text: `aws_secret_access_key = ${times('wJalrXUtnFEMI', 3)}`, covers: times('wJalrXUtnFEMI', 3) },
];

const NOT_PASSWORD_ASSIGNMENTS: NegativeCase[] = [
  { name: 'prose naming a field', text: 'the password field is required' },
  { name: 'prose about resetting', text: 'reset your password' },
  { name: 'prose with a colon mid-sentence', text: 'Forgot your password: click here to reset' },
  { name: 'prose with a colon and one word', text: 'To change your password: Settings' },
  { name: 'an empty quoted value', text: 'password: ""' },
  { name: 'an empty env value', text: 'PASSWORD=\nUSER=bob' },
  { name: 'an angle-bracket placeholder', text: 'password=<your password>' },
  { name: 'a mask', text: 'password=****' },
  { name: 'a shell variable', text: 'password: ${PASSWORD}' },
  { name: 'a bare shell variable', text: 'mysql --password=$DB_PASSWORD' },
  { name: 'a process.env reference', text: 'password: process.env.PASSWORD' },
  { name: 'a template reference', text: 'password: {{ .Values.password }}' },
  { name: 'a GitHub Actions secret reference', text: 'password: ${{ secrets.DB_PASSWORD }}' },
  { name: 'a TypeScript property type', text: 'interface User {\n  password: string;\n}' },
  { name: 'a Python type hint', text: 'password: str' },
  { name: 'a schema call', text: 'password: z.string().min(8),' },
  { name: 'a different key ending', text: 'password_hash: abc' },
  { name: 'a flag that takes no value', text: 'echo $PW | docker login --password-stdin' },
  { name: 'the working directory in an env dump', text: 'PWD=/home/me\nOLDPWD=/tmp' },
  { name: 'a comparison', text: 'if password == expected:' },
  { name: 'a keyword argument passing a variable of the same name', text: 'connect(user=user, password=password)' },
  { name: 'a keyword argument passing another variable', text: 'connect(user=user, password=pw)' },
  { name: 'an object literal passing a variable', text: 'const x = { email, password: hashedPassword };' },
  { name: 'a multi-line object literal passing a variable', text: '{\n  password: hash,\n}' },
  { name: 'a null', text: '"password": null' },
  { name: 'a boolean', text: 'password: true' },
  { name: 'a placeholder phrase', text: 'password: your_password_here' },
  { name: 'an upper-case placeholder', text: 'api_key=YOUR_API_KEY' },
  { name: 'a "my" placeholder', text: 'SECRET_KEY=my_secret_key' },
  { name: 'a "here" placeholder', text: 'api_key: insert-key-here' },
  { name: 'a redaction marker', text: 'password: REDACTED' },
  { name: 'a call', text: 'password = getpass()' },
  { name: 'a plural key', text: 'secrets: inherit' },
  { name: 'a flag named in prose', text: 'use --password to pass it' },
  { name: 'a Python f-string reference', text: 'password=f"{pw}"' },
  { name: 'a label with a placeholder word', text: 'Password: Required.' },
  { name: 'a reference to a secret file', text: 'secret: /run/secrets/db' },
];

const VISA_TEST_CARD = '4111111111111111';
const CARD_NUMBERS: PositiveCase[] = [
  { name: 'Visa in groups of four', text: 'card 4111 1111 1111 1111 exp 12/25', covers: '4111 1111 1111 1111' },
  { name: 'Visa solid', text: VISA_TEST_CARD },
  { name: 'Mastercard with dashes', text: 'mc: 5555-5555-5555-4444.', covers: '5555-5555-5555-4444' },
  { name: 'Mastercard 2-series', text: '2223003122003222' },
  { name: 'Amex solid', text: 'amex 378282246310005', covers: '378282246310005' },
  { name: 'Amex in 4-6-5', text: '3782 822463 10005' },
  { name: 'Discover', text: '6011111111111117' },
  { name: 'JCB', text: '3530111333300000' },
  { name: '13-digit Visa', text: '4222222222222' },
  { name: 'Diners 14 digits', text: '30569309025904' },
  { name: 'a card followed by an expiry', text: '4111111111111111 12 25', covers: VISA_TEST_CARD },
  { name: 'a card followed by a short count', text: 'card 4111 1111 1111 1111 2 items', covers: '4111 1111 1111 1111' },
];

const NOT_CARD_NUMBERS: NegativeCase[] = [
  { name: 'a 16-digit order id that fails Luhn', text: 'order 4000123412341235' },
  { name: 'a Visa-like number off by one digit', text: '4111111111111112' },
  { name: 'a Luhn-valid number on no issuer prefix', text: 'id 1234567812345670' },
  { name: 'a Luhn-valid epoch-millisecond timestamp', text: 'ts=1718000000006' },
  { name: 'a Luhn-valid compact timestamp', text: '2024011512304515' },
  { name: 'a UUID', text: '550e8400-e29b-41d4-a716-446655440000' },
  { name: 'an all-digit UUID', text: '12345678-1234-1234-1234-123456789012' },
  { name: 'digits inside a hash', text: `sha a${VISA_TEST_CARD}b` },
  { name: 'digits after a decimal point', text: `pi 3.${VISA_TEST_CARD}` },
  { name: 'a 20-digit grouped number', text: '4111 1111 1111 1111 1111' },
  { name: 'single-digit groups', text: '4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1' },
  { name: 'a short number', text: '411111111111' },
];

const SSNS: PositiveCase[] = [
  { name: 'dashed with a label', text: 'SSN 123-45-6789', covers: '123-45-6789' },
  { name: 'dashed alone', text: '078-05-1120' },
  { name: 'spaced', text: 'ssn is 123 45 6789', covers: '123 45 6789' },
  { name: 'nine digits after "SSN:"', text: 'SSN: 123456789', covers: '123456789' },
  { name: 'nine digits after "social security number is"', text: 'social security number is 219099999', covers: '219099999' },
  { name: 'nine digits in JSON', text: '{"ssn": "123456789"}', covers: '123456789' },
];

const NOT_SSNS: NegativeCase[] = [
  { name: 'area 000', text: '000-12-3456' },
  { name: 'area 666', text: '666-12-3456' },
  { name: 'area 9xx', text: '900-12-3456' },
  { name: 'group 00', text: '123-00-4567' },
  { name: 'serial 0000', text: '123-45-0000' },
  { name: 'nine plain digits without a label', text: 'build 123456789' },
  { name: 'an invalid labelled number', text: 'SSN: 000123456' },
  { name: 'a date and a phone number', text: 'date 2024-01-15 phone 555-123-4567' },
  { name: 'a longer serial', text: '123-45-67890' },
  { name: 'mixed separators', text: '123-45 6789' },
  { name: 'spaced numbers in a table row', text: 'totals 100 20 3000 40' },
];

const PINS: PositiveCase[] = [
  { name: '"my PIN is"', text: 'my PIN is 4821', covers: '4821' },
  { name: '"pin:"', text: 'pin: 1234', covers: '1234' },
  { name: '"PIN code" with a leading zero', text: 'PIN code 00912', covers: '00912' },
  { name: 'eight digits', text: 'PIN: 12345678', covers: '12345678' },
  { name: 'JSON', text: '{"pin": "4821"}', covers: '4821' },
  { name: 'env', text: 'pin=0000', covers: '0000' },
  { name: 'upper-case noun with the digits directly after', text: 'PIN 7712', covers: '7712' },
  { name: '"pin number is" in a sentence', text: 'Your pin number is 5521.', covers: '5521' },
  { name: 'a prefixed key', text: 'user_pin: 1234', covers: '1234' },
];

const NOT_PINS: NegativeCase[] = [
  { name: 'pinning a version', text: 'pin the version to 1.2.3' },
  { name: 'pinned dependencies', text: 'pinned 4 deps' },
  { name: 'lower-case verb before a number', text: 'pin 2024 as the base year' },
  { name: 'pin inside a word', text: 'spin: 1234' },
  { name: 'three digits', text: 'pin: 123' },
  { name: 'nine digits', text: 'pin: 123456789' },
  { name: 'a version number', text: 'PIN: 1.2.3' },
  { name: 'an issue key', text: 'see PIN-1234' },
  { name: 'a plural', text: 'pins: 1234' },
];

describe('findHighShapes / readsAsHigh', () => {
  it.each(API_KEYS)('CONV-SENS-01 detects a pasted API key: $name', (c) => expectDetected('api_key', c));
  it.each(NOT_API_KEYS)('does not read $name as an API key', expectNotHigh);

  it.each(PRIVATE_KEYS)('CONV-SENS-01 detects a private key: $name', (c) => expectDetected('private_key', c));
  it.each(NOT_PRIVATE_KEYS)('does not read $name as a private key', expectNotHigh);

  it.each(PASSWORD_ASSIGNMENTS)('CONV-SENS-01 detects a password= assignment: $name', (c) =>
    expectDetected('password_assignment', c),
  );
  it.each(NOT_PASSWORD_ASSIGNMENTS)('does not read $name as a password assignment', expectNotHigh);

  it.each(CARD_NUMBERS)('CONV-SENS-01 detects a Luhn-checked card number: $name', (c) =>
    expectDetected('card_number', c),
  );
  it.each(NOT_CARD_NUMBERS)('does not read $name as a card number', expectNotHigh);

  it.each(SSNS)('CONV-SENS-01 detects an SSN: $name', (c) => expectDetected('ssn', c));
  it.each(NOT_SSNS)('does not read $name as an SSN', expectNotHigh);

  it.each(PINS)('CONV-SENS-01 detects a stated PIN: $name', (c) => expectDetected('pin', c));
  it.each(NOT_PINS)('does not read $name as a PIN', expectNotHigh);

  it('reports character offsets into the input', () => {
    expect(findHighShapes('x password=hunter2 y')).toEqual([{ kind: 'password_assignment', start: 11, end: 18 }]);
  });

  it('returns every shape ordered by start', () => {
    const text = `pin: 1234\ncard ${VISA_TEST_CARD}\n${GITHUB_CLASSIC}\nSSN 123-45-6789`;
    expect(findHighShapes(text).map((shape) => shape.kind)).toEqual(['pin', 'card_number', 'api_key', 'ssn']);
  });

  it('reports a Bearer JWT once, not once per rule that recognises it', () => {
    expect(findHighShapes(`Authorization: Bearer ${JWT}`)).toHaveLength(1);
  });

  it('keeps both kinds when a password assignment holds an API key', () => {
    const kinds = findHighShapes(`OPENAI_API_KEY=${OPENAI_LEGACY_KEY}`).map((shape) => shape.kind);
    expect(kinds.sort()).toEqual(['api_key', 'password_assignment']);
  });

  it('never returns the secret text, only kinds and offsets', () => {
    const text = `password=hunter2 ${GITHUB_CLASSIC} ${RSA_BLOCK} ${VISA_TEST_CARD} 123-45-6789 pin: 4821`;
    const shapes = findHighShapes(text);
    expect(shapes).toHaveLength(6);
    for (const shape of shapes) expect(Object.keys(shape).sort()).toEqual(['end', 'kind', 'start']);
    const serialised = JSON.stringify(shapes);
    for (const secret of ['hunter2', GITHUB_CLASSIC, 'MIIEpAIB', VISA_TEST_CARD, '123-45-6789', '4821']) {
      expect(serialised).not.toContain(secret);
    }
  });

  it('finds nothing in ordinary coding-session text', () => {
    const session = [
      'I updated the login form so the password field is required and added a reset link.',
      'Run `npm test` — 42 tests passed in 1718000000000 ms (timestamp 2024-01-15T12:30:45Z).',
      'const user = await users.create({ email, password: hashedPassword });',
      'Pinned 4 dependencies; pin the version to 1.2.3 before release.',
      'id 550e8400-e29b-41d4-a716-446655440000, order 4000123412341235, phone 555-123-4567.',
    ].join('\n');
    expect(findHighShapes(session)).toEqual([]);
  });

  it('agrees with findHighShapes on every table entry', () => {
    const positives = [API_KEYS, PRIVATE_KEYS, PASSWORD_ASSIGNMENTS, CARD_NUMBERS, SSNS, PINS].flat();
    const negatives = [NOT_API_KEYS, NOT_PRIVATE_KEYS, NOT_PASSWORD_ASSIGNMENTS, NOT_CARD_NUMBERS, NOT_SSNS, NOT_PINS].flat();
    for (const { text } of [...positives, ...negatives]) {
      expect(readsAsHigh(text)).toBe(findHighShapes(text).length > 0);
    }
  });
});

/** The shapes issue 9 found undetected (finding 3), each with the span a redactor must mask. */
const ISSUE_9_SHAPES: { name: string; kind: HighShapeKind; text: string; covers: string }[] = [
  { name: 'a value ending in "Secret"', kind: 'password_assignment', text: 'password=Hunter2Secret!', covers: 'Hunter2Secret!' },
  { name: 'a value ending in "Token"', kind: 'password_assignment', text: 'DB_PASSWORD=Blue7Token', covers: 'Blue7Token' },
  { name: 'a value ending in "Key"', kind: 'password_assignment', text: 'secret: MyS3cretKey', covers: 'MyS3cretKey' },
  {
    name: 'aws_secret_access_key mid-sentence',
    kind: 'password_assignment',
    text: `I set aws_secret_access_key = ${times('wJalrX9tnF', 4)} in the config but it fails`,
    covers: times('wJalrX9tnF', 4),
  },
  { name: 'postgres URL credentials', kind: 'password_assignment', text: 'postgres://admin:S3cr3t@db/prod', covers: 'S3cr3t' },
  { name: 'mysql URL credentials', kind: 'password_assignment', text: 'DATABASE_URL=mysql://app:Pa55w0rd!@10.0.0.4:3306/shop', covers: 'Pa55w0rd!' },
  { name: 'mongodb+srv URL credentials', kind: 'password_assignment', text: '"uri": "mongodb+srv://svc:Xk29dLq7@cluster0.ab1cd.mongodb.net/app"', covers: 'Xk29dLq7' },
  { name: 'redis URL with an empty user', kind: 'password_assignment', text: 'redis://:c4chePass@cache:6379/0', covers: 'c4chePass' },
  { name: 'amqp URL credentials', kind: 'password_assignment', text: 'amqp://orders:R4bbit2024@mq:5672/', covers: 'R4bbit2024' },
  { name: 'https URL credentials', kind: 'password_assignment', text: 'git clone https://user:T0kenValue9@git.example.com/x.git', covers: 'T0kenValue9' },
  { name: 'YAML password followed by more text', kind: 'password_assignment', text: '  password: Hunter2Secret! is the staging one', covers: 'Hunter2Secret!' },
  { name: 'a stated password in prose', kind: 'password_assignment', text: 'the db password is Tr0ub4dor&3 if you need it', covers: 'Tr0ub4dor&3' },
  { name: 'a card written with dots', kind: 'card_number', text: 'card 4111.1111.1111.1111 exp 09/28', covers: '4111.1111.1111.1111' },
  { name: 'a card written with slashes', kind: 'card_number', text: '5555/5555/5555/4444', covers: '5555/5555/5555/4444' },
  { name: 'a card written with spaced dashes', kind: 'card_number', text: '4111 - 1111 - 1111 - 1111', covers: '4111 - 1111 - 1111 - 1111' },
  { name: 'an Amex written with dots', kind: 'card_number', text: '3782.822463.10005', covers: '3782.822463.10005' },
  { name: 'a card with no-break spaces', kind: 'card_number', text: 'card 4111\u00A01111\u00A01111\u00A01111', covers: '4111\u00A01111\u00A01111\u00A01111' },
  { name: 'a key split by a zero-width space', kind: 'api_key', text: `use ${GITHUB_CLASSIC.slice(0, 9)}\u200B${GITHUB_CLASSIC.slice(9)} now`, covers: `${GITHUB_CLASSIC.slice(0, 9)}\u200B${GITHUB_CLASSIC.slice(9)}` },
  { name: 'a key split by a zero-width joiner and a soft hyphen', kind: 'api_key', text: `${AWS_ACCESS_KEY_ID.slice(0, 6)}\u200D${AWS_ACCESS_KEY_ID.slice(6, 12)}\u00AD${AWS_ACCESS_KEY_ID.slice(12)}`, covers: `${AWS_ACCESS_KEY_ID.slice(0, 6)}\u200D${AWS_ACCESS_KEY_ID.slice(6, 12)}\u00AD${AWS_ACCESS_KEY_ID.slice(12)}` },
  { name: 'a key wrapped over two lines', kind: 'api_key', text: `token ${GITHUB_CLASSIC.slice(0, 7)}\n    ${GITHUB_CLASSIC.slice(7)}`, covers: `${GITHUB_CLASSIC.slice(0, 7)}\n    ${GITHUB_CLASSIC.slice(7)}` },
  { name: 'a key wrapped late, with a long run before the break', kind: 'api_key', text: `use ${GITHUB_CLASSIC.slice(0, 30)}\n    ${GITHUB_CLASSIC.slice(30)} now`, covers: `${GITHUB_CLASSIC.slice(0, 30)}\n    ${GITHUB_CLASSIC.slice(30)}` },
  { name: 'a password in full-width characters', kind: 'password_assignment', text: 'ｐａｓｓｗｏｒｄ＝ｈｕｎｔｅｒ２', covers: 'ｈｕｎｔｅｒ２' },
  { name: 'mysql -p glued to its password', kind: 'password_assignment', text: 'mysql -u root -pS3cretPw orders', covers: 'S3cretPw' },
  { name: 'Basic credentials', kind: 'password_assignment', text: `Authorization: Basic ${Buffer.from('admin:Hunter2!').toString('base64')}`, covers: Buffer.from('admin:Hunter2!').toString('base64') },
  { name: 'a setter call', kind: 'password_assignment', text: 'ds.setPassword("Winter2024!");', covers: 'Winter2024!' },
  { name: 'a generated token under a bare token key', kind: 'password_assignment', text: `BOT_TOKEN=${times('k3Xq9Lm2', 4)}`, covers: times('k3Xq9Lm2', 4) },
];

const ISSUE_9_NEAR_MISSES: NegativeCase[] = [
  { name: 'a placeholder URL password', text: 'postgres://user:password@localhost:5432/mydb' },
  { name: 'a dev default where the password repeats the user', text: 'amqp://guest:guest@localhost:5672/' },
  { name: 'a URL password from a variable', text: 'redis://:${REDIS_PASSWORD}@redis:6379' },
  { name: 'a host and port before @', text: 'ssh://git@github.com:22/org/repo' },
  { name: 'a variable named like a secret', text: 'password=db_password' },
  { name: 'a PascalCase type after a spaced colon', text: 'secret_key: SecretKey' },
  { name: 'prose saying how a password is stored', text: 'the password is sha256-hashed before storage' },
  { name: 'prose about a token length', text: 'the token is 32-bytes long' },
  { name: 'a short cursor under a token key', text: 'next_page_token: "CAEQAA"' },
  { name: 'a UUID under a key name', text: 'api_key_id: 550e8400-e29b-41d4-a716-446655440000' },
  { name: "AWS's documentation secret key", text: fake('aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCY', 'EXAMPLEKEY') },
  { name: 'a masked key', text: fake('OPENAI_API_KEY=s', 'k-...') },
  { name: 'a filler key', text: fake('GITHUB_TOKEN=gh', 'p_', times('x', 36)) },
  { name: 'a Stripe test key in an assignment', text: fake('stripe.api_key = "sk', '_test_', times('4eC39HqLyj', 3), '"') },
  { name: 'a dotted version', text: 'release 2024.11.1234.5678' },
  { name: 'a card-like number with mixed separators', text: '4111.1111 1111-1111' },
  { name: 'a number after a decimal point in a dotted run', text: `pi 3.${VISA_TEST_CARD}` },
  { name: 'ssh -p with a port', text: 'ssh -p 2222 deploy@host' },
  { name: 'mysql prompting for the password', text: 'mysql -u root -p orders' },
  { name: 'Basic credentials of a placeholder', text: `Authorization: Basic ${Buffer.from('username:password').toString('base64')}` },
  { name: 'line-joined prose', text: 'the task\n-list is long' },
];

describe('issue 9 finding 3: shapes that used to leak', () => {
  it.each(ISSUE_9_SHAPES)('CONV-SENS-01 detects $name [issue 9: missed shapes]', ({ kind, text, covers }) => expectDetected(kind, { name: '', text, covers }));
  it.each(ISSUE_9_NEAR_MISSES)('does not read $name as high [issue 9: near misses]', expectNotHigh);

  it('maps offsets back to the text as written when it normalises a paste', () => {
    const text = `x\u200B\u200B password=hunter2`;
    expect(findHighShapes(text)).toEqual([{ kind: 'password_assignment', start: text.indexOf('hunter2'), end: text.length }]);
  });
});

describe('readsAsHighWithin', () => {
  const SHOWN = 240;
  const PAST_SHOWN = 1024;
  const filler = (length: number): string => times('lorem ipsum ', Math.ceil(length / 12)).slice(0, length);
  const withShapeAt = (offset: number): string => `${filler(offset)}password=hunter2 ${filler(2000)}`;

  it('CONV-SENS-07 finds a shape at character 1,000 within the 240 shown plus 1,024 past them', () => {
    const text = withShapeAt(1000);
    expect(findHighShapes(text)[0]?.start).toBe(1000 + 'password='.length);
    expect(readsAsHighWithin(text, 0, SHOWN + PAST_SHOWN)).toBe(true);
  });

  it('CONV-SENS-07 does not see a shape at character 1,300, past the 240 + 1,024 window', () => {
    const text = withShapeAt(1300);
    expect(readsAsHigh(text)).toBe(true);
    expect(readsAsHighWithin(text, 0, SHOWN + PAST_SHOWN)).toBe(false);
  });

  it('checks exactly text.slice(start, start + length)', () => {
    const text = `${filler(50)} pin: 4821 ${filler(50)}`;
    const pinAt = text.indexOf('4821');
    expect(readsAsHighWithin(text, 40, pinAt + 4 - 40)).toBe(true);
    expect(readsAsHighWithin(text, pinAt + 4, 100)).toBe(false);
    expect(readsAsHighWithin(text, 0, pinAt)).toBe(false);
  });

  it('clamps out-of-range and non-finite bounds instead of throwing', () => {
    const text = `pin: 4821`;
    expect(readsAsHighWithin(text, -10, 100)).toBe(true);
    expect(readsAsHighWithin(text, 0, Number.POSITIVE_INFINITY)).toBe(true);
    expect(readsAsHighWithin(text, 0, -5)).toBe(false);
    expect(readsAsHighWithin(text, 100, 10)).toBe(false);
    expect(readsAsHighWithin(text, Number.NaN, Number.NaN)).toBe(false);
    expect(readsAsHighWithin('', 0, 10)).toBe(false);
  });
});

// Speed is measured by `npm run bench`, not asserted here. These inputs are the shapes that make
// a backtracking regex explode: a regression would run for minutes and fail on jest's timeout.
describe('adversarial input', () => {
  const MiB = 1024 * 1024;
  const fill = (unit: string): string => unit.repeat(Math.ceil(MiB / unit.length)).slice(0, MiB);

  const ADVERSARIAL: { name: string; text: string }[] = [
    { name: 'digits', text: fill('0123456789') },
    { name: 'single-spaced digits', text: fill('4 ') },
    { name: 'dash-grouped digits', text: fill('4111-') },
    { name: '"password" repeated', text: fill('password') },
    { name: '"password " repeated', text: fill('password ') },
    { name: '"password: " repeated', text: fill('password: ') },
    { name: '"password=" repeated', text: fill('password=') },
    { name: 'unclosed quoted values', text: fill('password="') },
    { name: 'flags without values', text: fill('--password ') },
    { name: 'YAML keys whose values name a variable', text: fill('password: password\n') },
    { name: 'token prefixes', text: fill('sk-eyJ') },
    { name: 'JWT-like segments', text: fill('eyJabcdefgh.') },
    { name: 'private key headers without material', text: fill('-----BEGIN PRIVATE KEY-----\n') },
    { name: 'labels without values', text: fill('SSN PIN is ') },
    { name: 'SSN-like prefixes', text: fill('123-45-') },
  ];

  it.each(ADVERSARIAL)('scans 1 MiB of $name to the end, with shapes in order and in bounds', ({ text }) => {
    const shapes = findHighShapes(text);
    for (const [i, shape] of shapes.entries()) {
      expect(shape.start).toBeGreaterThanOrEqual(i === 0 ? 0 : shapes[i - 1]!.start);
      expect(shape.end).toBeLessThanOrEqual(text.length);
      expect(shape.end).toBeGreaterThan(shape.start);
    }
    expect(readsAsHigh(text)).toBe(shapes.length > 0);
  });

  it('stops at the first shape on the fast path', () => {
    const text = `password=hunter2\n${fill('password: password\n')}`;
    expect(readsAsHigh(text)).toBe(true);
    expect(findHighShapes(text)[0]).toMatchObject({ kind: 'password_assignment', start: 9 });
  });
});

describe('passesLuhn', () => {
  it.each(['4111111111111111', '5555555555554444', '378282246310005', '79927398713', '4000123412341234'])(
    'accepts %s',
    (digits) => expect(passesLuhn(digits)).toBe(true),
  );
  it.each(['4111111111111112', '79927398710', '', '4111-1111'])('rejects %p', (digits) =>
    expect(passesLuhn(digits)).toBe(false),
  );
});
