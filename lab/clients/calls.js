// The subset's calls through the official Node.js client (@elastic/elasticsearch), as a user
// makes them. Usage: node calls.js URL (with NODE_PATH at the installed node_modules). Prints
// {"client", "steps":[{"call","result"}]}: what the client returned for each call (the body, or
// the status and body of the error it threw), took, point-in-time ids and index uuids blanked.
// lab/realengines TestNodeClient runs it against conform serve and real Elasticsearch 8.15.0.
'use strict'
const { Client, errors } = require('@elastic/elasticsearch')
const version = require('@elastic/elasticsearch/package.json').version

const PAGE = { size: 5, query: { bool: { filter: [{ term: { category: 'tools' } }, { range: { price: { lt: 50 } } }] } },
  sort: [{ price: 'desc' }, { sku: 'asc' }], track_total_hits: true }
const TERMS = { size: 0, aggs: { by_brand: { terms: { field: 'brand', size: 5 }, aggs: { avg_price: { avg: { field: 'price' } } } } } }
const SCRATCH = 'conform-clients-node'

function blank (v) {
  if (Array.isArray(v)) return v.map(blank)
  if (v && typeof v === 'object') {
    const o = {}
    for (const k of Object.keys(v).sort()) o[k] = ['took', 'pit_id', 'id', 'index_uuid'].includes(k) ? '-' : blank(v[k])
    return o
  }
  return v
}

async function main (url) {
  const es = new Client({ node: url, requestTimeout: 60000 })
  const out = []
  async function call (name, fn) {
    try {
      const r = await fn()
      out.push({ call: name, result: blank(r) })
      return r
    } catch (e) {
      if (e instanceof errors.ResponseError) {
        out.push({ call: name, result: { status: e.meta.statusCode, error: blank(e.meta.body) } })
        return null
      }
      throw e
    }
  }
  await call('info', () => es.info())
  await call('ping', () => es.ping())
  await call('get', () => es.get({ index: 'catalogue', id: 'SKU-49561' }))
  await call('get missing', () => es.get({ index: 'catalogue', id: 'nope' }))
  await call('exists', () => es.exists({ index: 'catalogue', id: 'SKU-03331' }))
  await call('exists missing', () => es.exists({ index: 'catalogue', id: 'nope' }))
  const page = await call('search', () => es.search({ index: 'catalogue', ...PAGE }))
  if (page && page.hits.hits.length) {
    const after = page.hits.hits[page.hits.hits.length - 1].sort
    await call('search_after', () => es.search({ index: 'catalogue', search_after: after, ...PAGE }))
  }
  await call('terms', () => es.search({ index: 'catalogue', ...TERMS }))
  await call('count', () => es.count({ index: 'catalogue', query: { term: { brand: 'Acme' } } }))
  const ops = [{ index: { _id: '1' } }, { n: 1 }, { index: { _id: '2' } }, { n: 2 }, { create: { _id: '1' } }, { n: 3 }]
  await call('bulk', () => es.bulk({ index: SCRATCH, operations: ops, refresh: true }))
  await call('count scratch', () => es.count({ index: SCRATCH }))
  await call('delete scratch', () => es.indices.delete({ index: SCRATCH }, { ignore: [404] }))
  await call('mget', () => es.mget({ index: 'catalogue', ids: ['SKU-03331', 'SKU-11250', 'nope'], _source_includes: ['brand', 'tags'] }))
  await call('msearch', () => es.msearch({ searches: [{ index: 'catalogue' }, TERMS, { index: 'nope' }, {}, { index: 'catalogue' }, PAGE], typed_keys: true }))
  await call('search filter_path', () => es.search({ index: 'catalogue', filter_path: 'hits.hits._id,hits.hits.sort', ...PAGE }))
  const pit = await call('open pit', () => es.openPointInTime({ index: 'catalogue', keep_alive: '1m' }))
  if (pit) {
    let after = null
    for (let i = 0; i < 2; i++) {
      const res = await call('pit page ' + i, () => es.search({ pit: { id: pit.id, keep_alive: '1m' }, size: 4, sort: [{ rating: 'desc' }], _source: ['rating'], ...(after ? { search_after: after } : {}) }))
      after = res && res.hits.hits.length ? res.hits.hits[res.hits.hits.length - 1].sort : null
    }
    await call('close pit', () => es.closePointInTime({ id: pit.id }))
    await call('close pit again', () => es.closePointInTime({ id: pit.id }))
  }
  process.stdout.write(JSON.stringify({ client: '@elastic/elasticsearch ' + version, steps: out }))
}

main(process.argv[2]).catch(e => { console.error(e); process.exit(1) })
