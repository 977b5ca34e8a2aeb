import { ALNUM, BASE32, BASE64, BASE64URL, HEX, UPPER_ALNUM, SeededRandom, grouped, luhnNumber } from './random';
import { HANDWRITTEN_HIGH } from './handwritten';
import type { CorpusSample } from './types';

/**
 * Samples that must read as high. Every credential is generated from a seed at run time and every
 * issuer prefix is assembled from parts (`p('gh', 'p_')`), so this file holds nothing a secret
 * scanner would flag and no sample is anyone's real secret.
 */
const p = (...parts: string[]): string => parts.join('');

/** One provider's key format: a fresh fake key per call. */
interface KeyFormat {
  kind: string;
  /** The environment variable a config would hold it in. */
  env: string;
  make(random: SeededRandom): string;
}

const KEY_FORMATS: readonly KeyFormat[] = [
  { kind: 'aws_access_key_id', env: 'AWS_ACCESS_KEY_ID', make: (r) => p('AK', 'IA', r.chars(BASE32.slice(0, 26) + '234567', 16)) },
  { kind: 'aws_session_key_id', env: 'AWS_ACCESS_KEY_ID', make: (r) => p('AS', 'IA', r.chars(BASE32, 16)) },
  { kind: 'github_classic_token', env: 'GITHUB_TOKEN', make: (r) => p('gh', 'p_', r.chars(ALNUM, 36)) },
  { kind: 'github_oauth_token', env: 'GH_TOKEN', make: (r) => p('gh', 'o_', r.chars(ALNUM, 36)) },
  { kind: 'github_app_token', env: 'GITHUB_TOKEN', make: (r) => p('gh', 's_', r.chars(ALNUM, 36)) },
  { kind: 'github_fine_grained_pat', env: 'GITHUB_PAT', make: (r) => p('github', '_pat_', r.chars(ALNUM, 22), '_', r.chars(ALNUM, 59)) },
  { kind: 'gitlab_pat', env: 'GITLAB_TOKEN', make: (r) => p('gl', 'pat-', r.chars(`${ALNUM}_-`, 20)) },
  { kind: 'slack_bot_token', env: 'SLACK_BOT_TOKEN', make: (r) => p('xo', 'xb-', r.chars('0123456789', 12), '-', r.chars('0123456789', 13), '-', r.chars(ALNUM, 24)) },
  { kind: 'slack_user_token', env: 'SLACK_USER_TOKEN', make: (r) => p('xo', 'xp-', r.chars('0123456789', 12), '-', r.chars('0123456789', 12), '-', r.chars('0123456789', 13), '-', r.chars(HEX, 32)) },
  { kind: 'slack_app_token', env: 'SLACK_APP_TOKEN', make: (r) => p('xa', 'pp-1-', r.chars(UPPER_ALNUM, 11), '-', r.chars('0123456789', 13), '-', r.chars(HEX, 64)) },
  { kind: 'slack_webhook', env: 'SLACK_WEBHOOK_URL', make: (r) => p('https://hooks.', 'slack.com/services/T', r.chars(UPPER_ALNUM, 8), '/B', r.chars(UPPER_ALNUM, 10), '/', r.chars(ALNUM, 24)) },
  { kind: 'stripe_live_secret', env: 'STRIPE_SECRET_KEY', make: (r) => p('sk', '_live_', r.chars(ALNUM, 24)) },
  { kind: 'stripe_restricted_key', env: 'STRIPE_KEY', make: (r) => p('rk', '_live_', r.chars(ALNUM, 99)) },
  { kind: 'stripe_webhook_secret', env: 'STRIPE_WEBHOOK_SECRET', make: (r) => p('wh', 'sec_', r.chars(ALNUM, 32)) },
  { kind: 'openai_legacy_key', env: 'OPENAI_API_KEY', make: (r) => p('s', 'k-', r.chars(ALNUM, 48)) },
  { kind: 'openai_project_key', env: 'OPENAI_API_KEY', make: (r) => p('s', 'k-proj-', r.chars(BASE64URL, 156)) },
  { kind: 'anthropic_key', env: 'ANTHROPIC_API_KEY', make: (r) => p('s', 'k-ant-api03-', r.chars(BASE64URL, 93), 'AA') },
  { kind: 'google_api_key', env: 'GOOGLE_API_KEY', make: (r) => p('AI', 'za', 'Sy', r.chars(BASE64URL, 33)) },
  { kind: 'google_oauth_client_secret', env: 'GOOGLE_CLIENT_SECRET', make: (r) => p('GOC', 'SPX-', r.chars(BASE64URL, 28)) },
  { kind: 'twilio_api_key', env: 'TWILIO_API_KEY', make: (r) => p('S', 'K', r.chars(HEX, 32)) },
  { kind: 'sendgrid_key', env: 'SENDGRID_API_KEY', make: (r) => p('S', 'G.', r.chars(BASE64URL, 22), '.', r.chars(BASE64URL, 43)) },
  { kind: 'npm_token', env: 'NPM_TOKEN', make: (r) => p('np', 'm_', r.chars(ALNUM, 36)) },
  { kind: 'pypi_token', env: 'PYPI_TOKEN', make: (r) => p('py', 'pi-AgEIcHlwaS5vcmc', r.chars(BASE64URL, 70)) },
  { kind: 'docker_hub_pat', env: 'DOCKERHUB_TOKEN', make: (r) => p('dckr', '_pat_', r.chars(BASE64URL, 27)) },
  { kind: 'heroku_api_key', env: 'HEROKU_API_KEY', make: (r) => p('HR', 'KU-', r.chars(BASE64URL, 60)) },
  { kind: 'shopify_access_token', env: 'SHOPIFY_ACCESS_TOKEN', make: (r) => p('shp', 'at_', r.chars(HEX, 32)) },
  { kind: 'shopify_shared_secret', env: 'SHOPIFY_API_SECRET', make: (r) => p('shp', 'ss_', r.chars(HEX, 32)) },
  { kind: 'digitalocean_pat', env: 'DIGITALOCEAN_TOKEN', make: (r) => p('do', 'p_v1_', r.chars(HEX, 64)) },
  { kind: 'huggingface_token', env: 'HF_TOKEN', make: (r) => p('h', 'f_', r.chars('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 34)) },
  { kind: 'linear_api_key', env: 'LINEAR_API_KEY', make: (r) => p('lin', '_api_', r.chars(ALNUM, 40)) },
  { kind: 'vault_token', env: 'VAULT_TOKEN', make: (r) => p('hv', 's.', r.chars(BASE64URL, 90)) },
  { kind: 'mailgun_key', env: 'MAILGUN_API_KEY', make: (r) => p('ke', 'y-', r.chars(HEX, 32)) },
  { kind: 'telegram_bot_token', env: 'TELEGRAM_BOT_TOKEN', make: (r) => p(r.chars('123456789', 10), ':A', 'A', r.chars(BASE64URL, 33)) },
  { kind: 'discord_webhook', env: 'DISCORD_WEBHOOK', make: (r) => p('https://discord.com/api/', 'webhooks/', r.chars('0123456789', 19), '/', r.chars(BASE64URL, 68)) },
  { kind: 'jwt_secret_token', env: 'SUPABASE_SERVICE_ROLE_KEY', make: (r) => jwt(r) },
  { kind: 'postman_api_key', env: 'POSTMAN_API_KEY', make: (r) => p('PM', 'AK-', r.chars(HEX, 24), '-', r.chars(HEX, 34)) },
  { kind: 'atlassian_api_token', env: 'JIRA_API_TOKEN', make: (r) => p('ATA', 'TT3', r.chars(`${ALNUM}_-`, 180), '=', r.chars(HEX.toUpperCase(), 8)) },
  { kind: 'grafana_service_account_token', env: 'GRAFANA_TOKEN', make: (r) => p('gl', 'sa_', r.chars(ALNUM, 32), '_', r.chars(HEX, 8)) },
  { kind: 'new_relic_user_key', env: 'NEW_RELIC_API_KEY', make: (r) => p('NR', 'AK-', r.chars(UPPER_ALNUM, 27)) },
  { kind: 'doppler_token', env: 'DOPPLER_TOKEN', make: (r) => p('dp', '.st.', 'prd.', r.chars(ALNUM, 43)) },
  { kind: 'google_oauth_refresh_token_jwt', env: 'ID_TOKEN', make: (r) => jwt(r) },
];

/** One bare key of every provider format, with no key name or context around it. */
export function bareProviderKeys(seed = 9): CorpusSample[] {
  const r = new SeededRandom(seed + 500);
  return KEY_FORMATS.map((format) => ({ kind: format.kind, text: format.make(r) }));
}

function jwt(r: SeededRandom): string {
  const header = Buffer.from('{"alg":"HS256","typ":"JWT"}').toString('base64url');
  const claims = Buffer.from(JSON.stringify({ sub: r.chars(HEX, 12), role: r.pick(['service_role', 'admin', 'api']), iat: 1700000000 + r.int(9e7) })).toString('base64url');
  return `${header}.${claims}.${r.chars(BASE64URL, 43)}`;
}

/** The places a pasted key turns up in a coding session. */
const KEY_CONTEXTS: readonly ((key: string, env: string) => string)[] = [
  (k, e) => `export ${e}=${k}`,
  (k, e) => `${e}="${k}"`,
  (k, e) => `{\n  "${e.toLowerCase()}": "${k}"\n}`,
  (k) => `here's the key I'm using: ${k} — can you see why the request 401s?`,
  (k, e) => `env:\n  ${e}: ${k}\n  LOG_LEVEL: debug`,
  (k) => `const client = new Client("${k}");`,
  (k) => `client = Client(token="${k}")`,
  (k) => `curl -s -H "Authorization: token ${k}" https://api.example.com/v1/me`,
  (k) => `2024-05-02T10:11:12Z ERROR request rejected, credential=${k} scope=read`,
  (k) => `\`\`\`\n${k}\n\`\`\``,
  (k) => `it works locally with ${k}, but CI says unauthorized`,
  (k, e) => `docker run -e ${e}=${k} myapp:latest`,
];

/** Passwords people actually write: none of them anyone's. */
function password(r: SeededRandom): string {
  const words = ['Hunter', 'Winter', 'Summer', 'Dragon', 'Monkey', 'Sunshine', 'Falcon', 'Orchid', 'Tiger', 'Maple'];
  const shapes: readonly (() => string)[] = [
    () => `${r.pick(words)}${2000 + r.int(30)}!`,
    () => `${r.pick(words)}${r.int(10)}${r.pick(['Secret', 'Token', 'Key'])}${r.pick(['!', '', '#'])}`,
    () => `${r.chars('abcdefghijkmnopqrstuvwxyz', 4)}${r.int(100)}${r.pick(['$', '&', '%', '@'])}${r.chars('ABCDEFGHJKLMNPQRSTUVWXYZ', 3)}`,
    () => r.chars(`${ALNUM}!@#%^*`, 12 + r.int(12)),
    () => `P@ssw0rd${r.int(1000)}`,
    () => `correct-horse-${r.int(100)}-battery`,
    () => `Tr0ub4dor&${r.int(10)}`,
    () => `S3cr3t${r.chars(ALNUM, 4)}`,
  ];
  return r.pick(shapes)();
}

/** `password`/`secret`/`token` assignments in the forms of shell, .env, YAML, JSON, TOML, code and prose. */
const ASSIGNMENT_FORMS: readonly { kind: string; make: (pw: string, r: SeededRandom) => string }[] = [
  { kind: 'assignment_shell', make: (pw) => `export DB_PASSWORD='${pw}'` },
  { kind: 'assignment_shell', make: (pw) => `PGPASSWORD=${pw} psql -h db.internal -U app` },
  { kind: 'assignment_env', make: (pw) => `# .env\nDATABASE_USER=app\nDATABASE_PASSWORD=${pw}\nDATABASE_HOST=localhost` },
  { kind: 'assignment_env', make: (pw) => `password=${pw}` },
  { kind: 'assignment_env', make: (pw, r) => `SECRET_KEY=${pw}${r.chars(ALNUM, 8)}` },
  { kind: 'assignment_env', make: (_pw, r) => `SESSION_SECRET=${r.chars(HEX, 64)}` },
  { kind: 'assignment_yaml', make: (pw) => `database:\n  username: app\n  password: ${pw}\n  port: 5432` },
  { kind: 'assignment_yaml', make: (pw) => `  password: ${pw}   and the user is admin` },
  { kind: 'assignment_yaml', make: (pw) => `spring:\n  datasource:\n    password: "${pw}"` },
  { kind: 'assignment_yaml', make: (_pw, r) => `auth:\n  client_secret: ${r.chars(BASE64URL, 32)}` },
  { kind: 'assignment_json', make: (pw) => `{"username": "deploy", "password": "${pw}"}` },
  { kind: 'assignment_json', make: (_pw, r) => `{"client_id": "web", "client_secret": "${r.chars(ALNUM, 40)}"}` },
  { kind: 'assignment_json', make: (pw) => `"{\\"db\\":{\\"password\\":\\"${pw}\\"}}"` },
  { kind: 'assignment_toml', make: (pw) => `[database]\nuser = "app"\npassword = "${pw}"` },
  { kind: 'assignment_toml', make: (_pw, r) => `[auth]\napi_token = "${r.chars(ALNUM, 32)}"` },
  { kind: 'assignment_ini', make: (pw) => `[client]\nuser=root\npassword=${pw}` },
  { kind: 'assignment_js', make: (pw) => `const password = "${pw}";` },
  { kind: 'assignment_js', make: (pw) => `await db.connect({ host: 'localhost', user: 'app', password: '${pw}' });` },
  { kind: 'assignment_js', make: (_pw, r) => `const apiToken = '${r.chars(ALNUM, 40)}';` },
  { kind: 'assignment_python', make: (pw) => `conn = psycopg2.connect(host="db", user="app", password="${pw}")` },
  { kind: 'assignment_python', make: (pw) => `PASSWORD = "${pw}"` },
  { kind: 'assignment_python', make: (pw) => `os.environ["DB_PASSWORD"] = "${pw}"` },
  { kind: 'assignment_go', make: (pw) => `password := "${pw}"` },
  { kind: 'assignment_go', make: (_pw, r) => `cfg := Config{APIKey: "${r.chars(ALNUM, 32)}"}` },
  { kind: 'assignment_java', make: (pw) => `String password = "${pw}";` },
  { kind: 'assignment_java', make: (pw) => `dataSource.setPassword("${pw}");` },
  { kind: 'assignment_java', make: (pw) => `spring.datasource.password=${pw}` },
  { kind: 'assignment_ruby', make: (pw) => `config.password = '${pw}'` },
  { kind: 'assignment_ruby', make: (pw) => `{ :password => "${pw}" }` },
  { kind: 'assignment_php', make: (pw) => `'password' => '${pw}',` },
  { kind: 'assignment_csharp', make: (pw) => `"Server=sql01;Database=orders;User Id=sa;Password=${pw};"` },
  { kind: 'assignment_prose', make: (pw) => `the staging db password is ${pw} if you need it` },
  { kind: 'assignment_prose', make: (pw) => `My password is ${pw}, please don't share it.` },
  { kind: 'assignment_prose', make: (pw) => `I changed the admin password to ${pw} yesterday` },
  { kind: 'assignment_prose', make: (_pw, r) => `I set aws_secret_access_key = ${r.chars(BASE64, 40)} in the config but it still fails` },
  { kind: 'assignment_prose', make: (pw) => `Login with user admin, password: ${pw} and then open settings` },
  { kind: 'assignment_markdown', make: (pw) => `- **Password:** ${pw}` },
  { kind: 'assignment_cli', make: (pw) => `mysql -u root -p${pw} orders` },
  { kind: 'assignment_cli', make: (pw) => `docker login -u deploy -p ${pw} registry.example.com` },
  { kind: 'assignment_cli', make: (pw) => `curl -u admin:${pw} https://jenkins.internal/api/json` },
  { kind: 'assignment_cli', make: (pw) => `sshpass -p '${pw}' ssh deploy@10.0.0.5` },
  { kind: 'assignment_netrc', make: (pw) => `machine api.example.com\n  login deploy\n  password ${pw}` },
  { kind: 'assignment_header', make: (_pw, r) => `X-API-Key: ${r.chars(ALNUM, 32)}` },
  { kind: 'assignment_header', make: (pw) => `Authorization: Basic ${Buffer.from(`admin:${pw}`).toString('base64')}` },
  { kind: 'aws_secret_access_key', make: (_pw, r) => `[default]\naws_access_key_id = ${p('AK', 'IA', r.chars(BASE32, 16))}\naws_secret_access_key = ${r.chars(BASE64, 40)}` },
  { kind: 'aws_secret_access_key', make: (_pw, r) => `AWS_SECRET_ACCESS_KEY=${r.chars(BASE64, 40)}` },
  { kind: 'azure_connection_string', make: (_pw, r) => `DefaultEndpointsProtocol=https;AccountName=prodstore;AccountKey=${r.chars(BASE64, 86)}==;EndpointSuffix=core.windows.net` },
  { kind: 'azure_connection_string', make: (_pw, r) => `Endpoint=sb://orders.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${r.chars(BASE64, 43)}=` },
  { kind: 'azure_sas', make: (_pw, r) => `https://prodstore.blob.core.windows.net/backups?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2026-01-01T00:00:00Z&sig=${r.chars(ALNUM, 40)}%3D` },
  { kind: 'twilio_auth_token', make: (_pw, r) => `TWILIO_ACCOUNT_SID=AC${r.chars(HEX, 32)}\nTWILIO_AUTH_TOKEN=${r.chars(HEX, 32)}` },
  { kind: 'bot_token', make: (_pw, r) => `BOT_TOKEN=${r.chars(ALNUM, 40)}` },
];

const URL_SCHEMES = ['postgres', 'postgresql', 'mysql', 'mongodb+srv', 'mongodb', 'redis', 'rediss', 'amqp', 'amqps', 'https', 'http', 'ftp', 'smtp', 'mssql', 'jdbc:postgresql'];
const URL_CONTEXTS: readonly ((url: string) => string)[] = [
  (u) => `DATABASE_URL=${u}`,
  (u) => `connect with ${u} and run the migration`,
  (u) => `"url": "${u}"`,
  (u) => `  uri: ${u}`,
  (u) => `git clone ${u}`,
];

const PEM_TYPES = ['RSA ', 'EC ', 'OPENSSH ', 'DSA ', 'ENCRYPTED ', ''];

function pemBlock(r: SeededRandom, type: string, newline: string): string {
  const lines: string[] = [];
  for (let i = 0; i < 6; i++) lines.push(r.chars(BASE64, 64));
  return p('-----BEGIN ', type, 'PRIVATE KEY-----', newline, lines.join(newline), newline, '-----END ', type, 'PRIVATE KEY-----');
}

/** Card networks: issuer prefix, length and how the network prints its groups. */
const CARDS: readonly { network: string; prefix: string; length: number; groups: readonly number[] }[] = [
  { network: 'visa', prefix: '4', length: 16, groups: [4, 4, 4, 4] },
  { network: 'mastercard', prefix: '5', length: 16, groups: [4, 4, 4, 4] },
  { network: 'mastercard_2', prefix: '2221', length: 16, groups: [4, 4, 4, 4] },
  { network: 'amex', prefix: '37', length: 15, groups: [4, 6, 5] },
  { network: 'discover', prefix: '6011', length: 16, groups: [4, 4, 4, 4] },
  { network: 'jcb', prefix: '35', length: 16, groups: [4, 4, 4, 4] },
  { network: 'diners', prefix: '36', length: 14, groups: [4, 6, 4] },
  { network: 'unionpay', prefix: '62', length: 19, groups: [4, 4, 4, 4, 3] },
  { network: 'maestro', prefix: '6759', length: 16, groups: [4, 4, 4, 4] },
  { network: 'visa_13', prefix: '4', length: 13, groups: [4, 4, 4, 1] },
];
const CARD_SEPARATORS: readonly { name: string; separator: string }[] = [
  { name: 'spaces', separator: ' ' },
  { name: 'dashes', separator: '-' },
  { name: 'dots', separator: '.' },
  { name: 'slashes', separator: '/' },
  { name: 'none', separator: '' },
  { name: 'spaced_dashes', separator: ' - ' },
];
const CARD_CONTEXTS: readonly ((card: string) => string)[] = [
  (c) => `card: ${c} exp 09/28 cvc 123`,
  (c) => `please charge ${c} for the renewal`,
  (c) => `{"card_number": "${c}", "exp": "11/27"}`,
  (c) => c,
];

/** Ways a paste hides a secret from a naive matcher without hiding it from a reader. */
const OBFUSCATIONS: readonly { kind: string; apply: (secret: string, r: SeededRandom) => string }[] = [
  { kind: 'zero_width_space', apply: (s, r) => insertAt(s, 4 + r.int(Math.max(1, s.length - 8)), '\u200B') },
  { kind: 'zero_width_joiner', apply: (s) => insertAt(insertAt(s, 6, '\u200D'), 12, '\u200C') },
  { kind: 'soft_hyphen', apply: (s) => insertAt(s, 10, '\u00AD') },
  { kind: 'word_joiner_bom', apply: (s) => insertAt(insertAt(s, 5, '\u2060'), 15, '\uFEFF') },
  { kind: 'full_width', apply: (s) => [...s].map((ch) => (ch >= '!' && ch <= '~' ? String.fromCharCode(ch.charCodeAt(0) + 0xfee0) : ch)).join('') },
  { kind: 'line_wrap', apply: (s, r) => insertAt(s, 6 + r.int(Math.max(1, s.length - 12)), '\n    ') },
];

function insertAt(text: string, at: number, insert: string): string {
  return text.slice(0, at) + insert + text.slice(at);
}

export function highSamples(seed = 9): CorpusSample[] {
  const r = new SeededRandom(seed);
  const samples: CorpusSample[] = [];
  const add = (kind: string, text: string): void => {
    samples.push({ kind, text });
  };

  for (const format of KEY_FORMATS) {
    for (let i = 0; i < 4; i++) add(format.kind, r.pick(KEY_CONTEXTS)(format.make(r), format.env));
  }
  add('bearer_token', `Authorization: Bearer ${r.chars(`${ALNUM}._-`, 48)}`);
  add('bearer_token', `-H "authorization: bearer ${r.chars(ALNUM, 40)}"`);
  add('gcp_service_account', gcpServiceAccount(r));
  add('gcp_service_account', gcpServiceAccount(r).replace(/\n/g, ' '));

  for (const form of ASSIGNMENT_FORMS) {
    for (let i = 0; i < 2; i++) add(form.kind, form.make(password(r), r));
  }
  // The finding's own examples (issue 9), word for word.
  add('assignment_env', 'password=Hunter2Secret!');
  add('assignment_env', 'password=Hunter2Token');
  add('assignment_env', 'api_password=Blue7Key');
  add('assignment_yaml', 'password: Hunter2Secret! is the one for staging');

  for (const scheme of URL_SCHEMES) {
    const user = r.pick(['admin', 'app', 'svc_orders', 'root', 'deploy', '']);
    const host = r.pick(['db', 'db.internal:5432', 'cluster0.ab1cd.mongodb.net', '10.0.3.7', 'mq.example.com']);
    const pw = r.pick([password(r), r.chars(ALNUM, 20), 'S3cr3t']);
    add('url_credentials', r.pick(URL_CONTEXTS)(`${scheme}://${user}:${encodeURIComponent(pw)}@${host}/prod`));
  }
  add('url_credentials', 'postgres://admin:S3cr3t@db/prod');
  add('url_credentials', `https://user:${r.chars(ALNUM, 16)}@git.example.com/team/repo.git`);
  add('url_credentials', `redis://:${r.chars(ALNUM, 24)}@cache:6379/0`);
  add('url_credentials', `https://${r.chars(HEX, 40)}:x-oauth-basic@github.com/org/repo.git`);

  for (const type of PEM_TYPES) {
    add(`private_key_${(type.trim() || 'pkcs8').toLowerCase()}`, pemBlock(r, type, '\n'));
    add(`private_key_${(type.trim() || 'pkcs8').toLowerCase()}`, `here is the deploy key:\n${pemBlock(r, type, '\n')}\nthanks`);
  }
  add('private_key_pgp', p('-----BEGIN PGP ', 'PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n', r.chars(BASE64, 64), '\n', r.chars(BASE64, 64), '\n=', r.chars(BASE64, 4), '\n-----END PGP ', 'PRIVATE KEY BLOCK-----'));
  add('private_key_escaped', `{"key": "${pemBlock(r, '', '\\n')}"}`);
  add('private_key_cut', p('-----BEGIN OPENSSH ', 'PRIVATE KEY-----\n', r.chars(BASE64, 70), '\n', r.chars(BASE64, 70), '\n(pasted only the first lines)'));

  for (const card of CARDS) {
    for (const { name, separator } of CARD_SEPARATORS) {
      const digits = luhnNumber(r, card.prefix, card.length);
      const written = separator === '' ? digits : grouped(digits, card.groups, separator);
      add(`card_${name}`, r.pick(CARD_CONTEXTS)(written));
    }
  }

  for (let i = 0; i < 12; i++) {
    const ssn = `${String(1 + r.int(665)).padStart(3, '0')}-${String(1 + r.int(98)).padStart(2, '0')}-${String(1 + r.int(9998)).padStart(4, '0')}`;
    add('ssn', r.pick([`SSN ${ssn}`, `my social security number is ${ssn}`, `{"ssn": "${ssn}"}`, `employee ${ssn} onboarding`, `ssn: ${ssn.replace(/-/g, '')}`, `SSN ${ssn.replace(/-/g, ' ')}`]));
  }
  for (let i = 0; i < 12; i++) {
    const pin = String(r.int(10 ** (4 + (i % 3)))).padStart(4 + (i % 3), '0');
    add('pin', r.pick([`my PIN is ${pin}`, `pin: ${pin}`, `PIN code ${pin}`, `{"pin": "${pin}"}`, `the card PIN is ${pin}, don't lose it`, `PIN ${pin}`, `user_pin=${pin}`]));
  }

  const obfuscationTargets: readonly (() => string)[] = [
    () => p('gh', 'p_', r.chars(ALNUM, 36)),
    () => p('s', 'k-proj-', r.chars(BASE64URL, 64)),
    () => p('AK', 'IA', r.chars(BASE32, 16)),
    () => `password=${password(r)}`,
    () => grouped(luhnNumber(r, '4', 16), [4, 4, 4, 4], ' '),
    () => p('xo', 'xb-', r.chars('0123456789', 12), '-', r.chars(ALNUM, 24)),
  ];
  for (const obfuscation of OBFUSCATIONS) {
    // A terminal wraps long tokens; it does not wrap a password or a card someone typed.
    const targets = obfuscation.kind === 'line_wrap' ? [obfuscationTargets[0], obfuscationTargets[1], obfuscationTargets[2], obfuscationTargets[5]] : obfuscationTargets;
    for (const target of targets) if (target !== undefined) add(`obfuscated_${obfuscation.kind}`, `use ${obfuscation.apply(target(), r)} for now`);
  }
  add('obfuscated_nbsp', `card 4111\u00A01111\u00A01111\u00A01111`);
  add('obfuscated_en_dash', `${grouped(luhnNumber(r, '5', 16), [4, 4, 4, 4], '\u2013')}`);
  add('obfuscated_curly_quotes', `\u201Cpassword\u201D: \u201C${password(r)}\u201D`);
  add('obfuscated_line_wrap', `Authorization: token ${p('gh', 'p_')}\n${r.chars(ALNUM, 36)}`);
  return [...samples, ...HANDWRITTEN_HIGH];
}

function gcpServiceAccount(r: SeededRandom): string {
  return JSON.stringify(
    {
      type: 'service_account',
      project_id: 'orders-prod',
      private_key_id: r.chars(HEX, 40),
      private_key: pemBlock(r, '', '\n') + '\n',
      client_email: 'ci@orders-prod.iam.gserviceaccount.com',
    },
    null,
    2,
  );
}
