import { ALNUM, BASE64, HEX, SeededRandom, grouped, luhnNumber, nonLuhnNumber } from './random';
import { HANDWRITTEN_NEAR_MISSES } from './handwritten';
import type { CorpusSample } from './types';

/**
 * Samples that look like secrets and must not read as high: identifiers, digests, documented
 * example keys, type declarations, placeholders and references, numbers that are not cards, and
 * prose that talks about secrets without holding one. A false positive here costs a user their
 * search hit, their excerpt and their title, so these are the texts coding sessions are full of.
 */
const p = (...parts: string[]): string => parts.join('');

export function nearMissSamples(seed = 9): CorpusSample[] {
  const r = new SeededRandom(seed + 1000);
  const samples: CorpusSample[] = [];
  const add = (kind: string, text: string): void => {
    samples.push({ kind, text });
  };
  const uuid = (): string => `${r.chars(HEX, 8)}-${r.chars(HEX, 4)}-4${r.chars(HEX, 3)}-a${r.chars(HEX, 3)}-${r.chars(HEX, 12)}`;
  const sha = (): string => r.chars(HEX, 40);
  const sha256 = (): string => r.chars(HEX, 64);

  const shaContexts: readonly ((s: string) => string)[] = [
    (s) => `commit ${s}\nAuthor: Dev <dev@example.com>`,
    (s) => `git checkout ${s}`,
    (s) => `Merge ${s.slice(0, 7)} into main`,
    (s) => `fixed in ${s.slice(0, 12)}, see the PR`,
    (s) => `"sha": "${s}"`,
    (s) => `HEAD is now at ${s.slice(0, 7)} Fix the flaky test`,
    (s) => `git revert ${s}`,
    (s) => `  resolved "https://registry.yarnpkg.com/x/-/x-1.0.0.tgz#${s}"`,
  ];
  for (let i = 0; i < 24; i++) add('git_sha', r.pick(shaContexts)(sha()));

  const uuidContexts: readonly ((u: string) => string)[] = [
    (u) => `request_id=${u}`,
    (u) => `{"id": "${u}", "status": "ok"}`,
    (u) => `thread ${u} has 12 turns`,
    (u) => `api_key_id: ${u}`,
    (u) => `DELETE /v1/sessions/${u} -> 204`,
    (u) => `trace_id: ${u}`,
    (u) => `session_token_id = "${u}"`,
    (u) => `idempotency_key: ${u}`,
  ];
  for (let i = 0; i < 24; i++) add('uuid', r.pick(uuidContexts)(uuid()));

  const digestContexts: readonly ((d: string) => string)[] = [
    (d) => `docker pull node@sha256:${d}`,
    (d) => `${d}  release.tar.gz`,
    (d) => `checksum: sha256:${d}`,
    (d) => `"integrity": "sha512-${Buffer.from(d, 'hex').toString('base64')}${r.chars(BASE64, 42)}=="`,
    (d) => `etag: "${d.slice(0, 32)}"`,
    (d) => `content_hash=${d}`,
    (d) => `cache key ${d.slice(0, 16)} missed`,
  ];
  for (let i = 0; i < 21; i++) add('digest', r.pick(digestContexts)(sha256()));

  // Keys published in documentation, truncated, masked, or filled with placeholders.
  const examples = [
    p('AKIA', 'IOSFODNN7', 'EXAMPLE'),
    `aws_access_key_id = ${p('AKIA', 'IOSFODNN7', 'EXAMPLE')}`,
    `aws_secret_access_key = ${p('wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCY', 'EXAMPLEKEY')}`,
    `AWS_SECRET_ACCESS_KEY=${p('wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCY', 'EXAMPLEKEY')}`,
    `[default]\naws_access_key_id = ${p('AKIA', 'I44QH8DHB', 'EXAMPLE')}\naws_secret_access_key = ${p('je7MtGbClwBF/2Zp9Utk/', 'h3yCo8nvb', 'EXAMPLEKEY')}`,
    `stripe.api_key = "${p('sk', '_test_', '4eC39HqLyjWDarjtT1zdp7dc')}"`,
    `STRIPE_KEY=${p('pk', '_test_', 'TYooMQauvdEDq54NiTphI7jx')}`,
    `GITHUB_TOKEN=${p('gh', 'p_', 'x'.repeat(36))}`,
    `token: ${p('gh', 'p_', 'XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX')}`,
    `OPENAI_API_KEY=${p('s', 'k-', '...')}`,
    `OPENAI_API_KEY=${p('s', 'k-proj-', '************************')}`,
    `the key looks like ${p('s', 'k-ant-api03-', '...')} followed by 90 characters`,
    `SLACK_BOT_TOKEN=${p('xo', 'xb-', 'your-bot-token')}`,
    `export ANTHROPIC_API_KEY=${p('s', 'k-ant-', 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx')}`,
    `api_key: ${p('AI', 'za', 'SyXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX')}`,
    `npm config set //registry.npmjs.org/:_authToken=\${NPM_TOKEN}`,
    `"apiKey": "${p('s', 'k-', '<your key here>')}"`,
    `AKIA followed by 16 uppercase letters and digits, e.g. ${p('AKIA', 'XXXXXXXXXXXXXXXX')}`,
    `Bearer YOUR_ACCESS_TOKEN`,
    `Authorization: Bearer <token>`,
    `Authorization: Basic ${Buffer.from('username:password').toString('base64')}`,
    `postgres://user:password@localhost:5432/mydb`,
    `postgres://postgres:postgres@localhost:5432/postgres`,
    `amqp://guest:guest@localhost:5672/`,
    `mongodb://<username>:<password>@cluster0.example.mongodb.net`,
    `redis://:\${REDIS_PASSWORD}@redis:6379`,
    `mysql://root:****@127.0.0.1/app`,
    `https://user:pass@example.com/ (replace user and pass)`,
    `hf_token = "hf_...your token..."`,
    `card number like 4111 1111 1111 XXXX`,
  ];
  for (const text of examples) add('example_or_masked_key', text);

  const typeDeclarations = [
    'interface User {\n  password: string;\n}',
    'password?: string',
    'type Creds = { username: string; password: string }',
    'password: str',
    'api_key: SecretStr',
    'token: Optional[str] = None',
    'private String password;',
    'String password;',
    'Password string `json:"password"`',
    'pub password: String,',
    'password: Option<String>,',
    'secret: Secret',
    'password: z.string().min(12),',
    '@Column() password: string;',
    'def login(username: str, password: str) -> Token:',
    'func Login(user, password string) error {',
    'password: { type: String, required: true },',
    'access_token: string | null',
    'apiKey: process.env.OPENAI_API_KEY,',
    'password: hashedPassword,',
    'const { password, ...rest } = user;',
    'if password == confirm_password:',
    'password = getpass.getpass("Password: ")',
    'password := os.Getenv("DB_PASSWORD")',
    'String password = System.getenv("DB_PASSWORD");',
    'password = ENV.fetch("DB_PASSWORD")',
    'let password = prompt("Password:");',
    'password: ${{ secrets.DB_PASSWORD }}',
    'connect(user=user, password=password)',
    'db.connect(host=host, password=db_password)',
    'client = OpenAI(api_key=api_key)',
    'password=pw,',
    'setPassword(newPassword);',
    'user.setPassword(passwordEncoder.encode(raw));',
    'const token = await getToken();',
    'token: Token',
    'secret_key: SecretKey',
    'password_hash: $2b$12$' + r.chars(`${ALNUM}./`, 53),
    'hashed_password = bcrypt.hashpw(pw, bcrypt.gensalt())',
    'max_tokens=4096',
    'token_type: bearer',
    'tokens: 1842',
    'next_page_token: "CAEQAA"',
    'csrf_token = request.form["csrf_token"]',
    'cache_key = f"user:{user_id}"',
    'primary_key: id',
    'foreign_key: account_id',
    'sort_key: created_at',
  ];
  for (const text of typeDeclarations) add('code_not_a_literal', text);

  const placeholders = [
    'password: <your-password>',
    'API_KEY=<your-api-key>',
    'token: ${TOKEN}',
    'password=$DB_PASSWORD',
    'export OPENAI_API_KEY=$(cat ~/.secrets/openai)',
    'password: "{{ vault_db_password }}"',
    'password: !vault |',
    'password: ${{ secrets.PROD_DB_PASSWORD }}',
    'secret: %SECRET%',
    'password=xxxx',
    'password: ********',
    'password: changeme',
    'password: CHANGE_ME',
    'api_key: YOUR_API_KEY_HERE',
    'api_key=your_api_key',
    'SECRET_KEY=my_secret_key',
    'password: REDACTED',
    'password: [REDACTED]',
    'token: <redacted>',
    'password=',
    'password: ""',
    "password: ''",
    'password: null',
    'password: ~',
    'secret: /run/secrets/db_password',
    'password_file: /etc/app/password',
    'PASSWORD_FILE=/run/secrets/pg',
    'password: !Ref DbPassword',
    'password: example',
    'password: placeholder',
    'api_key: insert-key-here',
    'token: TODO',
    'password: N/A',
    'SECRET=...',
    'client_secret: <client-secret>',
    'AUTH_TOKEN={{AUTH_TOKEN}}',
  ];
  for (const text of placeholders) add('placeholder', text);

  for (let i = 0; i < 12; i++) {
    const v = `${r.int(30)}.${r.int(20)}.${r.int(40)}`;
    add('version', r.pick([`upgrade to v${v}`, `"version": "${v}"`, `node ${v}`, `pin the version to ${v}`, `Bump lodash from ${v} to ${r.int(5)}.${r.int(9)}.${r.int(9)}`, `version: ${v}-beta.${r.int(9)}`]));
  }
  add('version', 'release 2024.11.1234.5678');
  add('version', 'Chrome/124.0.6367.118 Safari/537.36');

  const phones = [
    '+1 (555) 123-4567',
    '555-123-4567',
    '555.867.5309',
    '+44 20 7946 0958',
    '+49 30 901820',
    '+33 1 42 68 53 00',
    '(212) 555 0199',
    '+1-800-555-0100',
    '+61 2 9374 4000',
    '+81 3-3224-9999',
    'call me at 0171 555 0123',
    'tel: +1 415 555 2671',
    '+91 98765 43210',
    '+1 555 010 9999',
  ];
  for (const phone of phones) add('phone', `phone: ${phone}`);

  for (let i = 0; i < 10; i++) {
    const ip = `${10 + r.int(200)}.${r.int(255)}.${r.int(255)}.${r.int(255)}`;
    add('ip_address', r.pick([`ssh deploy@${ip}`, `host: ${ip}:5432`, `GET / from ${ip}`, `allow ${ip}/32`]));
  }
  add('ip_address', 'listen [2001:db8:85a3::8a2e:370:7334]:443');

  for (let i = 0; i < 12; i++) {
    const ms = 1_600_000_000_000 + r.int(200_000_000_000);
    add('timestamp', r.pick([`ts=${ms}`, `"created_at": ${ms}`, `at ${new Date(ms).toISOString()}`, `${Math.floor(ms / 1000)} epoch seconds`, `2024-0${1 + r.int(9)}-1${r.int(9)} 12:${10 + r.int(49)}:${10 + r.int(49)}`, `build ${new Date(ms).toISOString().replace(/\D/g, '').slice(0, 14)}`]));
  }

  for (let i = 0; i < 14; i++) {
    add('order_or_invoice_id', r.pick([
      `order #${nonLuhnNumber(r, '4', 16)}`,
      `ORD-${2020 + r.int(6)}-${String(r.int(1e6)).padStart(6, '0')}`,
      `invoice ${2024}/${String(1 + r.int(12)).padStart(2, '0')}/${String(r.int(9999)).padStart(4, '0')}`,
      `tracking number 1Z${r.chars('0123456789ABCDEFGHJKLMNPRSTUVWXYZ', 16)}`,
      `account 0${r.chars('0123456789', 11)}`,
      `ticket PROJ-${r.int(9999)}`,
      `PIN-${r.int(9999)} is the issue for the login bug`,
    ]));
  }

  const ordinaryTexts = [
    'hello world, this is a test of the upload pipeline',
    'The quick brown fox jumps over the lazy dog',
    'user=bob&role=viewer&page=2',
    '{"event":"signup","plan":"pro"}',
    'Lorem ipsum dolor sit amet, consectetur adipiscing elit',
    'meeting notes: ship the search fix on Thursday',
    'function add(a, b) { return a + b; }',
    'SELECT id, name FROM users WHERE active = 1',
  ];
  for (const text of ordinaryTexts) add('base64_of_text', `payload: ${Buffer.from(text).toString('base64')}`);

  const separators = [' ', '-', '.', '/', ''];
  for (let i = 0; i < 20; i++) {
    const digits = nonLuhnNumber(r, r.pick(['4', '5', '37', '6011']), 16);
    add('luhn_invalid_number', `ref ${separators[i % 5] === '' ? digits : grouped(digits, [4, 4, 4, 4], separators[i % 5] ?? ' ')}`);
  }
  for (let i = 0; i < 6; i++) add('no_issuer_prefix', `id ${grouped(luhnNumber(r, r.pick(['1', '7', '8', '9']), 16), [4, 4, 4, 4], r.pick(separators))}`);
  add('grouped_20_digits', `IBAN-like ${grouped(luhnNumber(r, '4', 20), [4, 4, 4, 4, 4], ' ')}`);
  add('decimal_number', `pi is about 3.${luhnNumber(r, '4', 16)}`);
  add('mixed_separators', `4111.1111 1111-1111`);

  const ssnLike = ['000-12-3456', '666-45-1234', '987-65-4321', '123-00-4567', '123-45-0000', 'build 123456789', 'zip 94105-1234', 'totals 100 20 3000 40', '123-45-67890', 'date 2024-01-15'];
  for (const text of ssnLike) add('not_an_ssn', text);

  const pinLike = ['pin the version to 1.2.3', 'pinned 4 deps', 'pin 2024 as the base year', 'spin: 1234', 'pin: 123', 'PIN: 1.2.3', 'pins: 1234', 'the pin is in the drawer', 'pin count 12'];
  for (const text of pinLike) add('not_a_pin', text);

  const prose = [
    'reset your password from the account page',
    'the password field is required',
    'Forgot your password: click here to reset',
    'To change your password: Settings',
    'the password is required and must be at least 12 characters',
    'the password is sha256-hashed before storage',
    'the password is stored as bcrypt with cost 12',
    'the API key is stored in Vault, never in the repo',
    'rotate the token every 90 days',
    'the token is valid for 3600 seconds',
    'the secret is in 1Password under "prod db"',
    'use --password to pass it on the command line',
    'mysql -u root -p  # then type the password at the prompt',
    'docker login -u deploy --password-stdin < token.txt',
    'the session token is rotated every 15 minutes',
    'api keys are 40 characters long',
    'password reset emails now expire after 24h',
    'my password is too short, the form says',
    'the password was changed to meet the new policy',
    'set password to something stronger than before',
    'the key is 2048 bits',
    'the token is 32-bytes long',
    'password: see 1Password',
    'Password: Required.',
    'the secret key is rotated by the CronJob',
    'Secrets: none in this file',
    'the access token expires; refresh it with the refresh token',
    'ssh -p 2222 deploy@host',
    'mkdir -p build/output',
    'login -p 22 is not what you want',
    'curl -u "$USER:$TOKEN" https://api.example.com',
    'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC' + r.chars(BASE64, 200) + ' dev@laptop',
    `-----BEGIN PUBLIC KEY-----\n${r.chars(BASE64, 64)}\n${r.chars(BASE64, 64)}\n-----END PUBLIC KEY-----`,
    `-----BEGIN CERTIFICATE-----\n${r.chars(BASE64, 64)}\n-----END CERTIFICATE-----`,
    "if (pem.startsWith('-----BEGIN PRIVATE KEY-----')) {",
    'we use sk-learn for the baseline model',
    'task-1234567890abcdefghij',
    'xoxb-your-token-here',
    'the Twilio account SID is AC' + r.chars(HEX, 32) + ' (not secret)',
    'password strength: 3/4',
    'password123 is a terrible password, never use it',
    'my PIN is secret',
  ];
  for (const text of prose) add('prose_mention', text);

  return [...samples, ...HANDWRITTEN_NEAR_MISSES];
}
