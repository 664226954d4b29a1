// Validates the bodies the bot sends against the Zod schemas of the npm package discord-api-spec
// (generated from Discord's OpenAPI description), for tests/spec_validation.py's ZodValidator.
//
//   node tests/spec_validator.mjs ROOT            serve: one JSON request per line on stdin,
//       {"method": "POST", "path": "/channels/{channel_id}/messages", "body": {...}}
//       -> {"ok": true} or {"ok": false, "errors": ["data.embeds: Invalid input: ..."]}
//   node tests/spec_validator.mjs ROOT --routes   print the route table (names of the schemas)
//
// ROOT holds node_modules/discord-api-spec and node_modules/zod (tests/discord_spec.py fetches
// and caches them). The first line served is {"ready": true, ...} once the schemas are loaded.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const root = process.argv[2];
if (!root) {
  process.stderr.write("usage: node spec_validator.mjs ROOT [--routes]\n");
  process.exit(2);
}

// The request bodies of the routes the bot uses, by the package's schema names (its `Paths`
// type in build/discord-api-spec.ts names them per route; the Zod build has one `<Name>Schema`
// per name). `none`: a request without a body. `emoji`: the one body the package declares
// inline, without a schema of its own: written here, limits from Discord's description.
const CALLBACK = [
  "ApplicationCommandAutocompleteCallbackRequest",
  "CreateMessageInteractionCallbackRequest",
  "LaunchActivityInteractionCallbackRequest",
  "ModalInteractionCallbackRequest",
  "PongInteractionCallbackRequest",
  "SocialLayerSKUPurchaseEligibilityInteractionCallbackRequest",
  "UpdateMessageInteractionCallbackRequest",
];
const WEBHOOK_EDIT = { anyOf: ["IncomingWebhookUpdateRequestPartial"] };
const COMMANDS = { listOf: "ApplicationCommandUpdateRequest", maxItems: 130, nullable: true };
const ROUTES = {
  "POST /interactions/{interaction_id}/{interaction_token}/callback": { anyOf: CALLBACK },
  "POST /webhooks/{webhook_id}/{webhook_token}": {
    anyOf: ["IncomingWebhookRequestPartial", "IncomingWebhookUpdateRequestPartial"],
  },
  "PATCH /webhooks/{webhook_id}/{webhook_token}/messages/@original": WEBHOOK_EDIT,
  "PATCH /webhooks/{webhook_id}/{webhook_token}/messages/{message_id}": WEBHOOK_EDIT,
  "DELETE /webhooks/{webhook_id}/{webhook_token}/messages/@original": { none: true },
  "DELETE /webhooks/{webhook_id}/{webhook_token}/messages/{message_id}": { none: true },
  "POST /channels/{channel_id}/messages": { anyOf: ["MessageCreateRequest"] },
  "PATCH /channels/{channel_id}/messages/{message_id}": { anyOf: ["MessageEditRequestPartial"] },
  "DELETE /channels/{channel_id}/messages/{message_id}": { none: true },
  "PUT /applications/{application_id}/commands": COMMANDS,
  "PUT /applications/{application_id}/guilds/{guild_id}/commands": COMMANDS,
  "GET /applications/{application_id}/emojis": { none: true },
  "POST /applications/{application_id}/emojis": { emoji: true },
};

// `{webhook_id}` and `{interaction_id}` name the same segment: routes compare by shape.
const shape = (key) => key.replace(/\{[^}]+\}/g, "{}");

async function importExport(name, subpath) {
  // The ES module a package exports at `subpath`: the very file the package's own
  // `import "zod/mini"` loads, so `z` below is the instance its schemas were built with.
  const dir = join(root, "node_modules", name);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const entry = manifest.exports[subpath];
  const file = typeof entry === "string" ? entry : (entry.import ?? entry.default);
  return import(pathToFileURL(join(dir, file)).href);
}

async function load() {
  const z = await importExport("zod", "./mini");
  const S = await importExport("discord-api-spec", "./zod");
  const { pathsList } = await importExport("discord-api-spec", ".");
  z.config(z.locales.en()); // Zod Mini says only "Invalid input" without a locale
  const schema = (name) => {
    const found = S[`${name}Schema`];
    if (!found) throw new Error(`discord-api-spec has no ${name}Schema`);
    return found;
  };
  const build = (entry) => {
    if (entry.none) return null;
    if (entry.emoji) {
      const name = z.string().check(z.minLength(2), z.maxLength(32));
      return z.object({ name, image: z.string() });
    }
    if (entry.listOf) {
      const list = z.array(schema(entry.listOf)).check(z.maxLength(entry.maxItems));
      return entry.nullable ? z.nullable(list) : list;
    }
    const options = entry.anyOf.map(schema);
    return options.length === 1 ? options[0] : z.union(options);
  };
  const table = new Map();
  for (const [key, entry] of Object.entries(ROUTES)) {
    const [method, path] = key.split(" ");
    if (!pathsList[method.toLowerCase()]?.includes(path)) {
      throw new Error(`${key} is not a route of discord-api-spec`); // a pin moved under us
    }
    table.set(shape(key), { schema: build(entry) });
  }
  return table;
}

// --- errors as one line each: "data.embeds.0.title: Too big: ..." -------------------------------

const where = (path) => (path.length ? path.join(".") : "(body)");

// A union that failed: the variant the body meant is the one whose `type` matched (the
// others fail there first), else the one with the fewest complaints; when no `type` matched,
// that is the complaint, with every type the union accepts.
const missedType = (issue) =>
  issue.code === "invalid_value" && issue.path.length === 1 && issue.path[0] === "type";

function describeUnion(branches, path) {
  const typed = branches.filter((issues) => !issues.some(missedType));
  if (typed.length === 0 && branches.every((issues) => issues.some(missedType))) {
    const values = branches.flatMap((issues) => issues.find(missedType).values);
    return [`${where([...path, "type"])}: expected one of ${[...new Set(values)].join("|")}`];
  }
  const [best] = [...(typed.length ? typed : branches)].sort((a, b) => a.length - b.length);
  return describe(best, path);
}

function describe(issues, prefix = []) {
  const lines = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === "invalid_union" && issue.errors?.length) {
      lines.push(...describeUnion(issue.errors, path));
    } else {
      lines.push(`${where(path)}: ${issue.message}`);
    }
  }
  return lines;
}

function check(table, request) {
  const { method, path, body } = request;
  const route = table.get(shape(`${String(method).toUpperCase()} ${path}`));
  if (!route) {
    return [`${method} ${path} is not a route tests/spec_validator.mjs knows`];
  }
  if (route.schema === null) {
    return body == null ? [] : ["this request takes no body"];
  }
  const parsed = route.schema.safeParse(body ?? null);
  return parsed.success ? [] : describe(parsed.error.issues);
}

function answer(table, line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    return { ok: false, errors: [`not a JSON request: ${error.message}`] };
  }
  const errors = check(table, request);
  return errors.length ? { ok: false, errors } : { ok: true };
}

function names(entry) {
  if (entry.none) return "undefined";
  if (entry.emoji) return "{ name: string; image: string; }";
  if (entry.listOf) return `${entry.listOf}[]${entry.nullable ? " | null" : ""}`;
  return entry.anyOf.join(" | ");
}

const table = await load();
if (process.argv.includes("--routes")) {
  const routes = Object.fromEntries(Object.entries(ROUTES).map(([k, e]) => [k, names(e)]));
  process.stdout.write(`${JSON.stringify(routes)}\n`);
} else {
  const version = (name) =>
    JSON.parse(readFileSync(join(root, "node_modules", name, "package.json"), "utf8")).version;
  const ready = { ready: true, "discord-api-spec": version("discord-api-spec"), zod: version("zod") };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (line.trim()) process.stdout.write(`${JSON.stringify(answer(table, line))}\n`);
  }
}
