import Testing

@testable import PreviewCore

/// When `--jwks-url` is fetched again, on a fixed clock.
@Suite struct JWKSRefreshScheduleTests {
    @Test(arguments: [
        ("max-age=600", Int64(600)), ("public, max-age=7200, must-revalidate", 7200), ("Max-Age=\"900\"", 900),
        ("max-age=10", 300), ("max-age=0", 300), ("no-store", 300), ("no-cache, max-age=600", 300),
        ("max-age=604800", 86400), ("max-age=99999999999999999999999", 86400), ("public", 3600),
        ("max-age=-5", 3600), ("max-age=1e3", 3600), ("max-age", 3600), ("=", 3600), ("", 3600),
    ])
    func maxAgeIsClampedBetweenFiveMinutesAndADay(cacheControl: String, lifetime: Int64) {
        #expect(JWKSRefreshSchedule.lifetime(cacheControl: cacheControl) == lifetime)
    }

    @Test func withoutCacheControlTheDefaultHourApplies() {
        #expect(JWKSRefreshSchedule.lifetime(cacheControl: nil) == 3600)
    }

    @Test func theFirstFetchIsDueAtOnceAndTheNextAfterMaxAge() {
        var schedule = JWKSRefreshSchedule()
        #expect(schedule.isDue(now: 1000))
        schedule.succeeded(now: 1000, cacheControl: "max-age=600")
        #expect(!schedule.isDue(now: 1599))
        #expect(schedule.isDue(now: 1600))
    }

    @Test func aFailureRetriesAfterThirtySeconds() {
        var schedule = JWKSRefreshSchedule()
        schedule.failed(now: 1000)
        #expect(!schedule.isDue(now: 1029))
        #expect(schedule.isDue(now: 1030))
    }

    @Test func anUnknownKidFetchesOnceTheKeysAreTenSecondsOld() {
        var schedule = JWKSRefreshSchedule()
        schedule.succeeded(now: 1000, cacheControl: "max-age=3600")
        let fetch1009 = schedule.unknownKeyID(now: 1009)
        #expect(!fetch1009)
        #expect(!schedule.isDue(now: 1009))
        let fetch1010 = schedule.unknownKeyID(now: 1010)
        #expect(fetch1010)
        #expect(schedule.isDue(now: 1010))
    }

    @Test func aMadeUpKidHoldsBackARealNewKeyNoLongerThanTheFloor() {
        var schedule = JWKSRefreshSchedule()
        schedule.succeeded(now: 1000, cacheControl: "max-age=3600")
        // A made-up kid fetches, and the provider rotates right after that fetch.
        let madeUp = schedule.unknownKeyID(now: 1100)
        #expect(madeUp)
        schedule.succeeded(now: 1101, cacheControl: "max-age=3600")
        let tooSoon = schedule.unknownKeyID(now: 1102)
        #expect(!tooSoon)
        let real = schedule.unknownKeyID(now: 1111)
        #expect(real, "the new key's token fetches 10 s after the last fetch, whoever caused that one")
        #expect(schedule.isDue(now: 1111))
    }

    @Test func unknownKidsNeverFetchMoreOftenThanTheFloorFailuresIncluded() {
        var schedule = JWKSRefreshSchedule()
        schedule.failed(now: 1000)
        let fetch1005 = schedule.unknownKeyID(now: 1005)
        #expect(!fetch1005)
        let fetch1010 = schedule.unknownKeyID(now: 1010)
        #expect(fetch1010, "sooner than the 30 s retry, but not sooner than the floor")
        schedule.failed(now: 1010)
        var fetches = 0
        for now in Int64(1011)...1070 where schedule.unknownKeyID(now: now) {
            fetches += 1
            schedule.failed(now: now)
        }
        #expect(fetches == 6, "one a floor over a minute of made-up kids")
    }

    @Test func whileAFetchIsDueMoreUnknownKidsWaitForItWithoutAnother() {
        var schedule = JWKSRefreshSchedule()
        schedule.succeeded(now: 1000, cacheControl: "max-age=3600")
        let first = schedule.unknownKeyID(now: 1020)
        let second = schedule.unknownKeyID(now: 1020)
        #expect(first && !second)
        #expect(schedule.isDue(now: 1020))
        schedule.succeeded(now: 1021, cacheControl: "max-age=3600")
        let after = schedule.unknownKeyID(now: 1021)
        #expect(!after)
    }

    @Test func aClockThatWentBackDoesNotBlockUnknownKidFetchesForever() {
        var schedule = JWKSRefreshSchedule()
        schedule.succeeded(now: 5000, cacheControl: "max-age=3600")
        let fetch1000 = schedule.unknownKeyID(now: 1000)
        #expect(fetch1000)
    }

    @Test func fetchNowMakesTheNextPassFetch() {
        var schedule = JWKSRefreshSchedule()
        schedule.succeeded(now: 1000, cacheControl: "max-age=3600")
        schedule.fetchNow(now: 1200)
        #expect(schedule.isDue(now: 1200))
    }
}
