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

    @Test func unknownKidsCauseAtMostOneFetchPerMinute() {
        var schedule = JWKSRefreshSchedule()
        schedule.succeeded(now: 1000, cacheControl: "max-age=3600")
        let fetch1100 = schedule.unknownKeyID(now: 1100)
        #expect(fetch1100)
        #expect(schedule.isDue(now: 1100))
        schedule.succeeded(now: 1101, cacheControl: "max-age=3600")
        let fetch1159 = schedule.unknownKeyID(now: 1159)
        #expect(!fetch1159)
        #expect(!schedule.isDue(now: 1159))
        let fetch1160 = schedule.unknownKeyID(now: 1160)
        #expect(fetch1160)
        #expect(schedule.isDue(now: 1160))
    }

    @Test func aClockThatWentBackDoesNotBlockUnknownKidFetchesForever() {
        var schedule = JWKSRefreshSchedule()
        let fetch5000 = schedule.unknownKeyID(now: 5000)
        #expect(fetch5000)
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
