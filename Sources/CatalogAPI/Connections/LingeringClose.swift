import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Reads and discards the rest of a request body that was answered before it was read (a 413, or a 401 or 403
/// on a write), then closes the connection: nginx's lingering close.
///
/// Many HTTP/1.1 clients (Python's `urllib` among them) write their whole body before they read. Hummingbird stops
/// reading a `Connection: close` request once it has answered, so such a client's send blocks and then fails with a
/// reset, and it never reads the answer. Here the early answer says `Connection: close`, the rest of the body is read
/// and dropped, up to `maximumBytes` or `maximumTime` after the answer, whichever comes first, and the connection is
/// closed when the body has ended or a bound is reached.
final class LingeringClose: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    static let defaultMaximumBytes = 64 * 1024 * 1024
    static let defaultMaximumTime = TimeAmount.seconds(10)

    private enum State {
        /// No request, or its body has ended.
        case idle
        /// A request whose body is still arriving.
        case receiving
        /// Answered while its body was still arriving; the answer is being written.
        case answeredEarly
        /// The early answer is written; what is left of the body is dropped.
        case discarding(bytes: Int)
    }

    private let maximumBytes: Int
    private let maximumTime: TimeAmount
    private var state = State.idle
    private var answerWritten = false
    private var bodyEnded = false
    private var deadline: Scheduled<Void>?

    init(maximumBytes: Int = defaultMaximumBytes, maximumTime: TimeAmount = defaultMaximumTime) {
        self.maximumBytes = maximumBytes
        self.maximumTime = maximumTime
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        switch (state, part) {
        case (.discarding(let bytes), .body(let buffer)):
            let total = bytes + buffer.readableBytes
            state = .discarding(bytes: total)
            if total > maximumBytes { context.close(promise: nil) }
        case (.discarding, .end):
            bodyEnded = true
            if answerWritten { context.close(promise: nil) }
        case (.discarding, .head):
            // A client that pipelines after an unread body gets no answer: the connection is closing.
            break
        case (_, .head):
            state = .receiving
            context.fireChannelRead(data)
        case (_, .end):
            if case .receiving = state { state = .idle }
            context.fireChannelRead(data)
        case (_, .body):
            context.fireChannelRead(data)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // Nobody above reads any more: keep pulling the body off the socket until it ends or a bound is reached.
        if case .discarding = state { context.read() }
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch (state, unwrapOutboundIn(data)) {
        case (.receiving, .head(var head)):
            state = .answeredEarly
            head.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case (.answeredEarly, .end):
            state = .discarding(bytes: 0)
            answerWritten = false
            bodyEnded = false
            let loopBound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
            deadline = context.eventLoop.scheduleTask(in: maximumTime) { loopBound.value.context.close(promise: nil) }
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.whenComplete { _ in
                let (handler, context) = loopBound.value
                handler.answerWritten = true
                if handler.bodyEnded { context.close(promise: nil) }
            }
            written.futureResult.cascade(to: promise)
            context.write(data, promise: written)
            context.read()
        default:
            context.write(data, promise: promise)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        context.fireChannelInactive()
    }
}
