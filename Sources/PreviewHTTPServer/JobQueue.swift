/// A first-in, first-out queue in a ring buffer: a removed element is released at once, and
/// the storage only grows to the most elements held at one time, however many pass through.
struct JobQueue<Element> {
    private var slots: [Element?] = []
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(_ element: Element) {
        if count == slots.count { grow() }
        slots[(head + count) % slots.count] = element
        count += 1
    }

    /// The oldest element, or nil when empty.
    mutating func removeFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = slots[head]
        slots[head] = nil
        head = (head + 1) % slots.count
        count -= 1
        return element
    }

    /// Doubles the storage, moving the elements to its start in order.
    private mutating func grow() {
        var larger: [Element?] = Array(repeating: nil, count: max(16, slots.count * 2))
        for offset in 0..<count {
            larger[offset] = slots[(head + offset) % slots.count]
        }
        slots = larger
        head = 0
    }
}
