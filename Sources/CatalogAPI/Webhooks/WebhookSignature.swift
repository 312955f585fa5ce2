import Crypto
import Foundation

/// Secrets and signatures as Standard Webhooks has them: a secret is `whsec_` and the base64 of random bytes, and a
/// message is signed `v1,` and the base64 of the HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`, keyed by
/// the secret's decoded bytes.
enum WebhookSignature {
    static let secretPrefix = "whsec_"

    /// A new secret, of 32 random bytes.
    static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return secretPrefix + Data(bytes).base64EncodedString()
    }

    /// The `webhook-signature` header of one message.
    static func sign(messageID: String, timestamp: Int, body: [UInt8], secret: String) -> String {
        let key = SymmetricKey(data: key(of: secret))
        var hmac = HMAC<SHA256>(key: key)
        hmac.update(data: Array("\(messageID).\(timestamp).".utf8))
        hmac.update(data: body)
        return "v1," + Data(hmac.finalize()).base64EncodedString()
    }

    /// The bytes a secret stands for; a secret that is not base64 after its prefix signs with its own bytes.
    private static func key(of secret: String) -> [UInt8] {
        let encoded = secret.hasPrefix(secretPrefix) ? String(secret.dropFirst(secretPrefix.count)) : secret
        return Data(base64Encoded: encoded).map(Array.init) ?? Array(secret.utf8)
    }
}
