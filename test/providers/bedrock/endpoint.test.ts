import { deepStrictEqual, strictEqual, throws } from 'node:assert/strict'
import { describe, test } from 'node:test'
import {
  checkEndpoint,
  EndpointError,
  hookBase,
  hostKind,
  runtimeEndpoint,
} from '../../../src/providers/bedrock/endpoint.ts'

describe('bedrock endpoints', () => {
  test('the two endpoint kinds, their regions, with or without a trailing slash', () => {
    deepStrictEqual(checkEndpoint('https://bedrock-runtime.us-east-1.amazonaws.com'), {
      origin: 'https://bedrock-runtime.us-east-1.amazonaws.com',
      kind: 'runtime',
      region: 'us-east-1',
    })
    deepStrictEqual(checkEndpoint('https://bedrock-mantle.eu-west-1.api.aws/'), {
      origin: 'https://bedrock-mantle.eu-west-1.api.aws',
      kind: 'mantle',
      region: 'eu-west-1',
    })
    deepStrictEqual(checkEndpoint('HTTPS://Bedrock-Runtime-FIPS.us-gov-west-1.amazonaws.com'), {
      origin: 'https://bedrock-runtime-fips.us-gov-west-1.amazonaws.com',
      kind: 'runtime',
      region: 'us-gov-west-1',
    })
    strictEqual(checkEndpoint('https://bedrock-runtime.cn-north-1.amazonaws.com.cn').kind, 'runtime')
    deepStrictEqual(hostKind('bedrock-mantle.ap-southeast-2.api.aws'), {
      kind: 'mantle',
      region: 'ap-southeast-2',
    })
  })

  test('hostile base URLs are refused, and no message repeats what was embedded', () => {
    const refused: [string, RegExp][] = [
      ['http://bedrock-runtime.us-east-1.amazonaws.com', /https:\/\//],
      ['https://user:hunter2@bedrock-runtime.us-east-1.amazonaws.com', /credentials/],
      ['https://AKIA@bedrock-runtime.us-east-1.amazonaws.com', /credentials/],
      ['https://bedrock-runtime.us-east-1.amazonaws.com@evil.example', /credentials/],
      ['https://bedrock-runtime.us-east-1.amazonaws.com:443', /port/],
      ['https://bedrock-runtime.us-east-1.amazonaws.com:8443/', /port/],
      ['https://bedrock-runtime.us-east-1.amazonaws.com/anthropic', /path/],
      ['https://bedrock-runtime.us-east-1.amazonaws.com/anthropic/v1/messages', /path/],
      ['https://bedrock-runtime.us-east-1.amazonaws.com/%2e%2e/x', /path/],
      ['https://bedrock-runtime.us-east-1.amazonaws.com?x=1', /query/],
      ['https://bedrock-runtime.us-east-1.amazonaws.com/?', /query/],
      ['https://bedrock-runtime.us-east-1.amazonaws.com#top', /fragment/],
      ['https://bedrock-runtime.us-east-1.amazonaws.com/#', /fragment/],
      ['https://evil.example', /not a Bedrock endpoint/],
      ['https://bedrock-runtime.us-east-1.amazonaws.com.evil.example', /not a Bedrock endpoint/],
      ['https://bedrock-runtime.us-east-1.amazonaws.com.', /not a Bedrock endpoint/],
      ['https://bedrock.us-east-1.amazonaws.com', /not a Bedrock endpoint/],
      ['https://bedrock-mantle.us-east-1.amazonaws.com', /not a Bedrock endpoint/],
      ['https://bedrock-runtime.not_a_region.amazonaws.com', /not a Bedrock endpoint/],
      ['https://127.0.0.1', /not a Bedrock endpoint/],
      [' https://bedrock-runtime.us-east-1.amazonaws.com', /https:\/\//],
      ['https:\\\\bedrock-runtime.us-east-1.amazonaws.com', /https:\/\//],
      ['bedrock-runtime.us-east-1.amazonaws.com', /https:\/\//],
    ]
    for (const [url, why] of refused) {
      throws(
        () => checkEndpoint(url),
        (err: Error) => {
          strictEqual(err instanceof EndpointError, true, url)
          strictEqual(why.test(err.message), true, `${url}: ${err.message}`)
          strictEqual(err.message.includes('hunter2') || err.message.includes('AKIA'), false, err.message)
          return true
        },
      )
    }
  })

  test('the default is the runtime endpoint of the region; a region must look like one', () => {
    deepStrictEqual(runtimeEndpoint('ap-northeast-1'), {
      origin: 'https://bedrock-runtime.ap-northeast-1.amazonaws.com',
      kind: 'runtime',
      region: 'ap-northeast-1',
    })
    for (const bad of ['', 'us-east-1.evil.example', 'US-EAST-1', 'us east 1', 'evil.example/x#'])
      throws(() => runtimeEndpoint(bad), EndpointError)
  })

  test('the test hook takes any http(s) base without credentials, query or fragment', () => {
    strictEqual(hookBase('http://127.0.0.1:4567'), 'http://127.0.0.1:4567')
    strictEqual(hookBase('http://127.0.0.1:4567/'), 'http://127.0.0.1:4567')
    strictEqual(hookBase('https://proxy.internal/bedrock/'), 'https://proxy.internal/bedrock')
    for (const bad of [
      'ftp://x',
      'not a url',
      'http://u:p@127.0.0.1:1',
      'http://127.0.0.1:1/?a',
      'http://h/#x',
    ])
      throws(() => hookBase(bad), EndpointError)
  })
})
